"""A rank that fails: `mpiexec -n 2 python hvd_failure.py MODE`. Rank 1 is killed (kill),
hangs outside any collective (hang), or raises (raise) while rank 0 waits in an allreduce;
rank 0 must not wait forever."""

import os
import signal
import sys
import time

import tapeflow as tf
import tapeflow.horovod as hvd

hvd.init()
mode = sys.argv[1]
hvd.allreduce(tf.constant(1.0))  # both ranks are up
if hvd.rank() == 1:
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif mode == "hang":
        time.sleep(600)
    else:
        raise RuntimeError("rank 1 failed on purpose")
hvd.allreduce(tf.constant(2.0))
print("rank 0 finished the allreduce: wrong", flush=True)
