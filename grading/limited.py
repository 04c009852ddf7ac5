"""limited.py: runs one command under resource limits; grade.py starts every build and test
through it (the limits are set here, between fork and exec, rather than in a preexec function,
which is unsafe in grade.py's threads).

  python3 grading/limited.py MEMORY FILE_SIZE CPU_SECONDS PROCESSES -- COMMAND [ARGS...]

MEMORY: bytes of address space (0: none); FILE_SIZE: the largest file it may write; CPU_SECONDS:
per process; PROCESSES: of this user (a root user is not held to it by the kernel). No core files.
"""
import os
import resource
import signal
import sys

memory, file_size, cpu, processes = (int(x) for x in sys.argv[1:5])
if sys.argv[5] != "--" or len(sys.argv) < 7:
    sys.exit("usage: limited.py MEMORY FILE_SIZE CPU_SECONDS PROCESSES -- COMMAND [ARGS...]")
if memory:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
cap = processes if hard == resource.RLIM_INFINITY else min(processes, hard)
resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it; the command must not
try:
    os.execvp(sys.argv[6], sys.argv[6:])
except OSError as e:
    print(f"limited.py: cannot run {sys.argv[6]}: {e.strerror}", file=sys.stderr)
    sys.exit(126)
