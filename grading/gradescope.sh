#!/bin/sh
# gradescope.sh: `make gradescope DIR=path`, the autograder kit for Gradescope (README.md,
# "Deploying the grader").
#
#   WB_GS_DIR=path [WB_GS_HOST=host WB_GS_USER=user WB_GS_PORT=22 WB_GS_KEY=file
#   WB_GS_KNOWN_HOSTS=file] [WB_GS_TIMEOUT=480] [WB_GS_LOCAL_GPU=1] sh grading/gradescope.sh ROOT
#
# (the Makefile passes DIR, GPU_HOST, GPU_USER, GPU_PORT, SSH_KEY, KNOWN_HOSTS, GS_TIMEOUT and
# LOCAL_GPU that way: data, never shell text). Writes DIR/autograder/ and DIR/autograder.zip,
# its contents at the zip's root as Gradescope asks: setup.sh and run_autograder
# (grading/gradescope/), autograder.py and gs_results.py (what run_autograder runs), kernels.tsv
# (each kernel file of exercises/ and its chapter: a flat upload is placed by its names),
# settings (the GPU machine and the timeout, key=value lines) and ssh/ (the key that reaches the
# GPU machine's grading entry point and nothing else, and the machine's host key: ssh checks it,
# so no other machine can answer with a score). No solutions/ and no workbook: the student's code
# never runs in Gradescope's container, only on the GPU machine.
# LOCAL_GPU=1 adds workbook/, the whole workbook, solutions/ included (make grade links the
# reference beside the student's kernel), for an image with a GPU: there the student's code runs
# in the container that holds the solutions and the key (the README says what that means).
# The folder must not exist yet, or be empty, and must lie outside the workbook (build/ aside).
# Exit 2 with one line on a bad setting.
root=$1
dir=${WB_GS_DIR:-} host=${WB_GS_HOST:-} user=${WB_GS_USER:-grader} port=${WB_GS_PORT:-22}
key=${WB_GS_KEY:-} known=${WB_GS_KNOWN_HOSTS:-} timeout=${WB_GS_TIMEOUT:-480} local_gpu=${WB_GS_LOCAL_GPU:-}
die() {
    printf 'make gradescope: %s\n' "$1" >&2
    exit "${2:-2}"
}
matches() { # VALUE ERE: the whole value, one line, matches
    case $1 in *'
'*) return 1 ;; esac
    printf '%s\n' "$1" | grep -Eq "^($2)\$"
}
[ -n "$dir" ] || die "give the folder: make gradescope DIR=path (it must not exist yet, or be empty)"
matches "$dir" '.+' || die "DIR holds a newline: choose a plain folder name"
in_range() { # VALUE LOW HIGH: a whole number from LOW to HIGH
    matches "$1" '[1-9][0-9]{0,5}' || return 1
    [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}
in_range "$timeout" 30 2400 ||
    die "GS_TIMEOUT='$timeout' is not a number of seconds from 30 to 2400 (Gradescope stops an autograder at 40 minutes at most)"
if [ -n "$host" ]; then
    matches "$host" '[A-Za-z0-9][A-Za-z0-9.:-]*' || die "GPU_HOST='$host' is not a host name or address"
    matches "$user" '[a-z_][a-z0-9_-]*' || die "GPU_USER='$user' is not a user name"
    in_range "$port" 1 65535 || die "GPU_PORT='$port' is not a port number"
    [ -f "$key" ] || die "GPU_HOST needs SSH_KEY=file, the private key of the forced-command key (README.md, \"Deploying the grader\")"
    [ -f "$known" ] || die "GPU_HOST needs KNOWN_HOSTS=file, the GPU machine's host key (ssh-keyscan -p $port $host > file, checked by hand)"
elif [ -n "$key$known" ]; then
    die "SSH_KEY and KNOWN_HOSTS go with GPU_HOST=host: give it too"
fi
case $local_gpu in '' | 0 | 1) ;; *) die "LOCAL_GPU='$local_gpu' is not 1 or 0" ;; esac
# shellcheck source=out_folder.sh
. "$root/grading/out_folder.sh"
out_folder "$dir" "$root" # sets target and here
cd "$here" || die "cannot enter the workbook" 1
kit="$target/autograder"
mkdir -p "$kit/ssh" || die "cannot write $kit" 1
cp grading/gradescope/setup.sh grading/gradescope/run_autograder grading/gradescope/autograder.py \
    grading/gs_results.py "$kit/" || die "could not copy the kit's scripts" 1
chmod 755 "$kit/setup.sh" "$kit/run_autograder"

# Each kernel file's chapter: a name in two chapters could not be placed by its name alone.
for f in exercises/[0-9][0-9]_*/*.cu; do
    [ -f "$f" ] || continue
    chapter=${f#exercises/}
    printf '%s\t%s\n' "${f##*/}" "${chapter%%/*}"
done >"$kit/kernels.tsv"
[ -s "$kit/kernels.tsv" ] || die "no kernel files in exercises/ (is $root the workbook?)" 1
twice=$(cut -f1 "$kit/kernels.tsv" | sort | uniq -d | head -n 1)
[ -z "$twice" ] || die "exercises/ has two kernel files named $twice: a flat upload could not be placed by its name" 1

printf 'host=%s\nport=%s\nuser=%s\ntimeout=%s\n' "$host" "$port" "$user" "$timeout" >"$kit/settings"
if [ -n "$host" ]; then
    { cp "$key" "$kit/ssh/id" && chmod 600 "$kit/ssh/id"; } || die "could not copy SSH_KEY" 1
    cp "$known" "$kit/ssh/known_hosts" || die "could not copy KNOWN_HOSTS" 1
fi
if [ "$local_gpu" = 1 ]; then
    list() { # the workbook's files, one a line, as make handout lists them
        if [ -d .git ] && command -v git >/dev/null 2>&1; then
            git ls-files --cached --others --exclude-standard
        else
            find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||'
        fi
    }
    list | while IFS= read -r path; do
        case $path in build/* | .git/*) continue ;; esac
        [ -f "$path" ] || continue
        mkdir -p "$kit/workbook/$(dirname "$path")" && cp -p "$path" "$kit/workbook/$path" ||
            die "could not copy $path" 1
    done || exit 1
fi
(cd "$kit" && rm -f ../autograder.zip && python3 -m zipfile -c ../autograder.zip ./*) ||
    die "could not write $dir/autograder.zip (python3's zipfile)" 1
where=${host:+"grades on $user@$host port $port"}
echo "make gradescope: $dir/autograder.zip (from $dir/autograder/): upload it as the assignment's autograder;" \
    "${where:-no GPU_HOST: grades only in a container with a GPU}, within $timeout s"
[ "$local_gpu" = 1 ] && echo "make gradescope: LOCAL_GPU=1: the kit holds the workbook, solutions/ included; a student's code graded in the container runs beside them"
[ -n "$host" ] || [ "$local_gpu" = 1 ] || echo "make gradescope: neither GPU_HOST nor LOCAL_GPU=1: every submission will be told it cannot be graded"
exit 0
