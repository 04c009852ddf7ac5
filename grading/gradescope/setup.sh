#!/bin/bash
# setup.sh: Gradescope runs this once, as root, when it builds the autograder's image (its
# specification asks for a Bash script; this one is POSIX sh too). It installs what the kit needs:
# python3 (autograder.py) and the SSH client (the GPU machine). In a kit made with LOCAL_GPU=1 it
# also builds the workbook (make all) where the image has the CUDA Toolkit, so that a container
# with a GPU grades at once; without nvcc it says so, and submissions go to the GPU machine.
set -e
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 openssh-client make
workbook=/autograder/source/workbook
if [ -f "$workbook/Makefile" ]; then
    if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libpng-dev pkg-config
        make -C "$workbook" all
    else
        echo "setup.sh: no CUDA Toolkit in this image: the workbook is not built, and submissions go to the GPU machine"
    fi
fi
chmod 755 /autograder/source/run_autograder
