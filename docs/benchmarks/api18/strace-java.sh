#!/usr/bin/env bash
# A java launcher for JMH's -jvm: the forked JVM runs under strace (seccomp-bpf: untraced syscalls cost nothing).
exec strace -f --seccomp-bpf -T -tt -e trace=pwrite64,pwritev,pwritev2,fdatasync,fsync,futex,write,io_submit,io_getevents \
  -o "${STRACE_OUT:-/work/runs/api18/strace.out}" /usr/bin/java "$@"
