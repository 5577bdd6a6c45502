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
