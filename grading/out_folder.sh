# shellcheck shell=sh
# out_folder.sh: the folder that make handout and make gradescope write, checked the same way
# (sourced by grading/handout.sh and grading/gradescope.sh).
#
#   out_folder DIR ROOT   DIR must not exist yet, or be an empty folder (never a link), and lie
#                         outside the workbook ROOT (its build/ aside: scratch space, never
#                         copied). Creates it and sets target (its real path) and here (the
#                         workbook's). Stops through the caller's die with one line.
# A folder inside the workbook would be copied into itself, or land in the student's copy.
out_folder() {
    case $1 in *'
'*) die "DIR holds a newline: choose a plain folder name" ;; esac
    if [ -e "$1" ] || [ -L "$1" ]; then
        { [ -d "$1" ] && [ ! -L "$1" ]; } || die "DIR '$1' exists and is not a folder"
        [ -z "$(ls -A "$1")" ] || die "DIR '$1' is not empty: give a new folder"
    fi
    mkdir -p "$1" || die "cannot create DIR '$1'"
    target=$(cd "$1" && pwd -P) || die "cannot enter DIR '$1'"
    here=$(cd "$2" && pwd -P)
    case $target/ in
    "$here"/build/*) ;;
    "$here"/*) rmdir "$1" 2>/dev/null; die "DIR '$1' lies inside the workbook: choose a folder outside it" ;;
    esac
}
