#!/bin/sh
# Stand-in for ncu on a machine where profiling is restricted to admins
# (the two lines ncu prints in that case).
echo "==PROF== Connected to process 4242"
echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0."
exit 1
