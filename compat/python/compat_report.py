"""Case reporting shared by the Python clients' compat scripts: one CASE line per case, one COMPAT-SUMMARY line."""
import sys
import time
import traceback


class Report:
    def __init__(self, client):
        self.client = client
        self.passed = 0
        self.failed = 0

    def case(self, name, fn):
        """Runs fn(); it returns a detail string on success and raises (usually AssertionError) on failure."""
        started = time.monotonic()
        try:
            detail = fn()
            self.passed += 1
            print(f"CASE {self.client} {name} PASS {detail} ({time.monotonic() - started:.1f}s)", flush=True)
            return True
        except Exception as ex:  # a client error is a failed case, not a crashed script
            self.failed += 1
            print(f"CASE {self.client} {name} FAIL {type(ex).__name__}: {str(ex)[:400]}", flush=True)
            traceback.print_exc(file=sys.stderr)
            return False

    def finish(self):
        print(f"COMPAT-SUMMARY client={self.client} passed={self.passed} failed={self.failed}", flush=True)
        return 0 if self.failed == 0 else 1


def expect_equal(want, got, what):
    if want != got:
        missing = [x for x in want if x not in got][:3]
        extra = [x for x in got if x not in want][:3]
        raise AssertionError(f"{what}: want {len(want)}, got {len(got)}; missing {missing}, unexpected {extra}")


def record(key, value, headers):
    """A record as the scripts compare them: text key and value, headers as a sorted tuple of text pairs."""
    as_text = lambda b: b.decode() if isinstance(b, (bytes, bytearray)) else b
    return (as_text(key), as_text(value), tuple(sorted((k, as_text(v)) for k, v in (headers or []))))


def run_cases(report, create_topic, produce, consume, group_two_members, group_resume):
    """The five cases every client runs, in this order. group-resume resumes from the offsets group-two-members
    commits, so it fails as not run when that case failed. Returns the exit code."""
    report.case("create-topic", create_topic)
    report.case("produce", produce)
    report.case("consume", consume)
    group_ok = report.case("group-two-members", group_two_members)

    def not_run():
        raise AssertionError("not run: it resumes from the offsets group-two-members commits, and that case failed")

    report.case("group-resume", group_resume if group_ok else not_run)
    return report.finish()


def poll_until(poll_batch, count, wait_s, quiet_s=0.0):
    """Calls poll_batch() (a list of records, maybe empty) until count records have come, then quiet_s seconds more
    to catch extras, or until wait_s; returns every record in the order they came."""
    got = []
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        got.extend(poll_batch())
        if len(got) >= count:
            if quiet_s == 0:
                break
            deadline = min(deadline, time.monotonic() + quiet_s)
    return got


def expect_resumed(want, got):
    """The group-resume verdict: exactly the new records, none again."""
    expect_equal(want, set(got), "records after restart")
    assert len(got) == len(want), f"{len(got)} records, want the {len(want)} new ones only"
    return f"a new member resumed at the committed offsets: exactly the {len(want)} new records"


def entry(main):
    """Runs main(BOOTSTRAP, PREFIX) from the command line and exits with its code."""
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} BOOTSTRAP PREFIX")
    sys.exit(main(sys.argv[1], sys.argv[2]))
