// Command franz-go-compat drives franz-go (kgo, kadm) against a Kafka-protocol broker.
//
// Usage: go run . BOOTSTRAP PREFIX. Prints "CASE franz-go <name> PASS|FAIL <detail>" per case and one COMPAT-SUMMARY
// line; exits 0 only when every case passed. Every wait is bounded.
package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	client = "franz-go"
	wait   = 30 * time.Second
)

var passed, failed int

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: franz-go-compat BOOTSTRAP PREFIX")
		os.Exit(2)
	}
	bootstrap, prefix := os.Args[1], os.Args[2]
	topic, groupTopic, group := prefix+"-fg", prefix+"-fg-group", prefix+"-fg-group"
	base := []kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.RequestTimeoutOverhead(10 * time.Second)}

	runCase("create-topic", func(ctx context.Context) (string, error) {
		cl, err := kgo.NewClient(base...)
		if err != nil {
			return "", err
		}
		defer cl.Close()
		adm := kadm.NewClient(cl)
		created, err := adm.CreateTopics(ctx, 2, 1, nil, topic, groupTopic)
		if err != nil {
			return "", err
		}
		if err := created.Error(); err != nil {
			return "", err
		}
		details, err := adm.ListTopics(ctx, topic, groupTopic)
		if err != nil {
			return "", err
		}
		for _, t := range []string{topic, groupTopic} {
			if d, ok := details[t]; !ok || d.Err != nil || len(d.Partitions) != 2 {
				return "", fmt.Errorf("%s not listed with 2 partitions: %+v", t, d)
			}
		}
		return "2 topics of 2 partitions, listed", nil
	})

	runCase("produce", func(ctx context.Context) (string, error) {
		recs, err := produce(ctx, base, topic, 0, 20, "value")
		if err != nil {
			return "", err
		}
		offsets := map[int32][]int64{}
		for _, r := range recs {
			offsets[r.Partition] = append(offsets[r.Partition], r.Offset)
		}
		for p := int32(0); p < 2; p++ {
			if got := fmt.Sprint(offsets[p]); got != "[0 1 2 3 4 5 6 7 8 9]" {
				return "", fmt.Errorf("partition %d offsets %s", p, got)
			}
		}
		return "20 records with keys and 2 headers, snappy, idempotent acks=all; offsets 0..9 in each partition", nil
	})

	runCase("consume", func(ctx context.Context) (string, error) {
		start := map[int32]kgo.Offset{0: kgo.NewOffset().AtStart(), 1: kgo.NewOffset().AtStart()}
		cl, err := kgo.NewClient(append(base, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: start}))...)
		if err != nil {
			return "", err
		}
		defer cl.Close()
		got, err := pollUntil(ctx, cl, 20, 0)
		if err != nil {
			return "", err
		}
		if err := same(expected(0, 20, "value"), got); err != nil {
			return "", err
		}
		return "20 records back from partition starts, keys and headers intact", nil
	})

	var members []*kgo.Client
	groupPassed := runCase("group-two-members", func(ctx context.Context) (string, error) {
		var mu sync.Mutex
		// The partitions each member holds now: the default balancer is cooperative-sticky, so a rebalance
		// revokes only the partitions that move.
		assigned := []map[int32]bool{{}, {}}
		for i := 0; i < 2; i++ {
			i := i
			drop := func(_ context.Context, _ *kgo.Client, r map[string][]int32) {
				mu.Lock()
				for _, p := range r[groupTopic] {
					delete(assigned[i], p)
				}
				mu.Unlock()
			}
			cl, err := kgo.NewClient(append(base, kgo.ConsumerGroup(group), kgo.ConsumeTopics(groupTopic),
				kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
				kgo.SessionTimeout(10*time.Second), kgo.FetchMaxWait(500*time.Millisecond),
				kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
					mu.Lock()
					for _, p := range a[groupTopic] {
						assigned[i][p] = true
					}
					mu.Unlock()
				}),
				kgo.OnPartitionsRevoked(drop), kgo.OnPartitionsLost(drop))...)
			if err != nil {
				return "", err
			}
			members = append(members, cl)
		}
		// Poll both members in goroutines: joining happens inside PollFetches.
		got := make([][]string, 2)
		parts := make([]map[int32]bool, 2)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i, cl := range members {
			i, cl := i, cl
			parts[i] = map[int32]bool{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
					fetches := cl.PollFetches(pctx)
					cancel()
					fetches.EachRecord(func(r *kgo.Record) {
						mu.Lock()
						got[i] = append(got[i], asRecord(r))
						parts[i][r.Partition] = true
						mu.Unlock()
					})
				}
			}()
		}
		defer func() { close(stop); wg.Wait() }()
		// Both members must hold a partition before records exist, so none is read twice across a rebalance.
		if err := until(ctx, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(assigned[0]) == 1 && len(assigned[1]) == 1 && fmt.Sprint(assigned[0]) != fmt.Sprint(assigned[1])
		}); err != nil {
			mu.Lock()
			defer mu.Unlock()
			return "", fmt.Errorf("assignments %v: %w", assigned, err)
		}
		if _, err := produce(ctx, base, groupTopic, 0, 20, "group"); err != nil {
			return "", err
		}
		if err := until(ctx, func() bool { mu.Lock(); defer mu.Unlock(); return len(got[0])+len(got[1]) >= 20 }); err != nil {
			return "", fmt.Errorf("group read %d+%d records: %w", len(got[0]), len(got[1]), err)
		}
		mu.Lock()
		defer mu.Unlock()
		for i, cl := range members {
			if fmt.Sprint(parts[i]) != fmt.Sprint(assigned[i]) {
				return "", fmt.Errorf("member %d assigned %v read partitions %v", i, assigned[i], parts[i])
			}
			if err := cl.CommitUncommittedOffsets(ctx); err != nil {
				return "", fmt.Errorf("member %d commit: %w", i, err)
			}
		}
		if err := same(expected(0, 20, "group"), append(append([]string{}, got[0]...), got[1]...)); err != nil {
			return "", err
		}
		return fmt.Sprintf("one partition each, %d+%d records, committed", len(got[0]), len(got[1])), nil
	})

	runCase("group-resume", func(ctx context.Context) (string, error) {
		for _, m := range members {
			m.Close() // leaves the group
		}
		if !groupPassed {
			return "", fmt.Errorf("not run: it resumes from the offsets group-two-members commits, and that case failed")
		}
		if _, err := produce(ctx, base, groupTopic, 20, 30, "group"); err != nil {
			return "", err
		}
		cl, err := kgo.NewClient(append(base, kgo.ConsumerGroup(group), kgo.ConsumeTopics(groupTopic),
			kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.FetchMaxWait(500*time.Millisecond))...)
		if err != nil {
			return "", err
		}
		defer cl.Close()
		got, err := pollUntil(ctx, cl, 10, 2*time.Second)
		if err != nil {
			return "", err
		}
		if err := same(expected(20, 30, "group"), got); err != nil {
			return "", err
		}
		return "a new member resumed at the committed offsets: exactly the 10 new records", nil
	})

	fmt.Printf("COMPAT-SUMMARY client=%s passed=%d failed=%d\n", client, passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

func runCase(name string, fn func(context.Context) (string, error)) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	defer cancel()
	started := time.Now()
	detail, err := fn(ctx)
	if err != nil {
		failed++
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		if len(msg) > 400 {
			msg = msg[:400]
		}
		fmt.Printf("CASE %s %s FAIL %s\n", client, name, msg)
		return false
	}
	passed++
	fmt.Printf("CASE %s %s PASS %s (%.1fs)\n", client, name, detail, time.Since(started).Seconds())
	return true
}

func produce(ctx context.Context, base []kgo.Opt, topic string, from, to int, tag string) ([]*kgo.Record, error) {
	cl, err := kgo.NewClient(append(base, kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchCompression(kgo.SnappyCompression()), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := from; i < to; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 2), Key: []byte(fmt.Sprintf("key-%d", i)),
			Value:   []byte(fmt.Sprintf("%s-%d", tag, i)),
			Headers: []kgo.RecordHeader{{Key: "source", Value: []byte(client)}, {Key: "seq", Value: []byte(strconv.Itoa(i))}}})
	}
	return recs, cl.ProduceSync(ctx, recs...).FirstErr()
}

// pollUntil polls until count records (then quiet more, to catch extras) or the context ends.
func pollUntil(ctx context.Context, cl *kgo.Client, count int, quiet time.Duration) ([]string, error) {
	var got []string
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		fetches := cl.PollFetches(pctx)
		cancel()
		for _, e := range fetches.Errors() {
			if e.Err != context.DeadlineExceeded && e.Err != context.Canceled {
				return got, fmt.Errorf("fetch %s[%d]: %w", e.Topic, e.Partition, e.Err)
			}
		}
		fetches.EachRecord(func(r *kgo.Record) { got = append(got, asRecord(r)) })
		if len(got) >= count {
			if quiet == 0 {
				break
			}
			if end := time.Now().Add(quiet); end.Before(deadline) {
				deadline = end
				quiet = time.Hour // the quiet period starts once
			}
		}
	}
	return got, nil
}

func until(ctx context.Context, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

func asRecord(r *kgo.Record) string {
	var hs []string
	for _, h := range r.Headers {
		hs = append(hs, h.Key+"="+string(h.Value))
	}
	sort.Strings(hs)
	return string(r.Key) + "|" + string(r.Value) + "|" + strings.Join(hs, ",")
}

func expected(from, to int, tag string) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("key-%d|%s-%d|seq=%d,source=%s", i, tag, i, i, client))
	}
	return out
}

func same(want, got []string) error {
	w := append([]string{}, want...)
	g := append([]string{}, got...)
	sort.Strings(w)
	sort.Strings(g)
	if strings.Join(w, "\n") != strings.Join(g, "\n") {
		return fmt.Errorf("want %d records, got %d (first wanted %q, first got %q)", len(w), len(g), first(w), first(g))
	}
	return nil
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
