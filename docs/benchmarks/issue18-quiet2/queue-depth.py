import os, mmap, threading, time, sys, random
fd = os.open('f', os.O_RDWR | os.O_DIRECT)
def worker(n, stop, cnt, i):
    buf = mmap.mmap(-1, 4096); buf.write(b'x'*4096)
    r = random.Random(i); c = 0
    while not stop[0]:
        off = r.randrange(0, 65536) * 4096
        os.pwritev(fd, [buf], off); c += 1
    cnt[i] = c
for n in [1, 2, 4, 8, 16]:
    stop=[False]; cnt=[0]*n
    ts=[threading.Thread(target=worker, args=(n, stop, cnt, i)) for i in range(n)]
    [t.start() for t in ts]; time.sleep(2); stop[0]=True; [t.join() for t in ts]
    print(n, 'threads', sum(cnt)/2, 'writes/s')
