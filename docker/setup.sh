#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image, after unpacking the
# autograder zip to $AUTOGRADER_ROOT/source. Four steps, in this order:
#
#   system       Python 3 with venv and pip (apt; the base image is Ubuntu 22.04, Python 3.10)
#   install      a venv OUTSIDE /root ($GRADER_VENV), world-readable: the worker drops to an
#                unprivileged user, and that user must still be able to run this Python; then
#                docker/requirements.txt (pinned) and the grader itself (editable, so the code
#                stays in source/, where the permissions below apply)
#   user         the unprivileged user student code runs as ($GRADER_WORKER_USER), and one more
#                a job slot of `grader batch` ($GRADER_WORKER_USER-1 .. -$GRADER_WORKER_SLOTS),
#                so that workers graded side by side cannot signal one another
#   permissions  others (that user) can read the grader package, and nothing with an answer
#                in it: reference/, trees/ (hidden cases, and a README naming them), the answer
#                cache; run_autograder does the same for results/ and the submission
#
# Every path comes from the variables below (defaults: Gradescope's layout). GRADER_SETUP_STEPS
# picks steps, so the tests run the "permissions" step on a temporary tree without installing.
set -euo pipefail

root="${AUTOGRADER_ROOT:-/autograder}"
source_dir="$root/source"
venv="${GRADER_VENV:-/opt/grader-venv}"
worker_user="${GRADER_WORKER_USER:-grader-worker}"
worker_slots="${GRADER_WORKER_SLOTS:-4}"
steps="${GRADER_SETUP_STEPS:-system install user permissions}"

step_system() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends python3 python3-venv python3-pip
}

step_install() {
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
    echo "setup.sh: the grader needs Python 3.10 or newer; python3 is $(python3 --version 2>&1)" >&2
    exit 1
  }
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -r "$source_dir/docker/requirements.txt"
  "$venv/bin/python" -m pip install --quiet --no-deps -e "$source_dir"
  "$venv/bin/python" -m grader --help >/dev/null  # fail the image build, not the first submission
  # Bytecode compiled into the image: each submission's container would otherwise compile the
  # grader's modules again in the grader and in every worker (about 0.5 CPU s a submission).
  "$venv/bin/python" -m compileall -q "$venv/lib" "$source_dir/grader" "$source_dir/reference" \
    >/dev/null
  chmod -R a+rX "$venv"
}

step_user() {
  local name
  for name in "$worker_user" $(seq -f "$worker_user-%g" 1 "$worker_slots"); do
    if ! id -u "$name" >/dev/null 2>&1; then
      useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin "$name"
    fi
  done
}

step_permissions() {
  # The worker's user may pass through the source folder and read the grader package...
  chmod 755 "$root" "$source_dir"
  chmod -R a+rX "$source_dir/grader"
  # ...and nothing that holds an answer. The grader runs as root and still reads all of it.
  mkdir -p "$source_dir/.cache" "$root/results"
  for secret in reference trees .cache; do
    chmod -R go-rwx "$source_dir/$secret"
  done
  chmod 700 "$root/results"
}

for step in $steps; do
  case "$step" in
    system | install | user | permissions) "step_$step" ;;
    *) echo "setup.sh: unknown step '$step'; expected some of: system install user permissions" >&2
       exit 2 ;;
  esac
done
