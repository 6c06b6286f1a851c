#!/usr/bin/env bash
# A real single-node SLURM for the tests (not a mock).
#
#   tests/cluster/slurm.sh start [STATE_DIR]   install slurm-wlm and munge if missing (Debian, root),
#                                               write slurm.conf under STATE_DIR, start munged,
#                                               slurmctld and slurmd, wait until the node is idle,
#                                               print `export SLURM_CONF=...`
#   tests/cluster/slurm.sh stop [STATE_DIR]    stop the three daemons by their PID files
#
# STATE_DIR defaults to ${CRLREPRO_SLURM_DIR:-/tmp/crlrepro-slurm}. Every file the daemons write
# (state, spool, logs, PID files, munge key and socket) lives there. The configuration is written to
# STATE_DIR/slurm.conf and linked from /etc/slurm/slurm.conf: Snakemake's SLURM job step removes
# every SLURM_* variable (SLURM_CONF included) before its inner `srun`, which then finds the cluster
# only at the default path. An /etc/slurm/slurm.conf that this script did not write is never touched
# (start fails instead); `stop` removes the link.
#
# The configuration is the smallest that runs jobs in a container without cgroups:
# ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, no accounting (so no slurmdbd and no
# working `sacct`: the workflow profile queries job states with `squeue`, and MinJobAge keeps
# finished jobs visible to squeue for 10 minutes).
set -euo pipefail

action=${1:-}
state=${2:-${CRLREPRO_SLURM_DIR:-/tmp/crlrepro-slurm}}
conf="$state/slurm.conf"

log() { echo "slurm.sh: $*" >&2; }

install_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
    return
  fi
  if [ "$(id -u)" != 0 ]; then
    log "slurm-wlm and munge are missing and installing them needs root"; exit 1
  fi
  log "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q slurm-wlm munge >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q slurm-wlm munge >/dev/null; }
}

stop_pidfile() {
  local pidfile=$1
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

stop() {
  stop_pidfile "$state/slurmd.pid"
  stop_pidfile "$state/slurmctld.pid"
  stop_pidfile "$state/munged.pid"
  if [ -L /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" = "$conf" ]; then
    rm -f /etc/slurm/slurm.conf
  fi
  log "stopped (state kept in $state)"
}

start() {
  install_packages
  stop 2>/dev/null || true
  mkdir -p "$state"/{ctld,spool,munge,log}
  local host cpus mem_mb
  host=$(hostname -s)
  cpus=$(nproc)
  mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))

  # munge: its own key and socket under STATE_DIR, so an existing munged is left alone.
  local key="$state/munge/munge.key" socket="$state/munge/munge.socket"
  [ -f "$key" ] || { dd if=/dev/urandom bs=1 count=1024 of="$key" status=none; chmod 400 "$key"; }
  chmod 700 "$state/munge"
  munged --force --key-file="$key" --socket="$socket" --pid-file="$state/munged.pid" \
    --log-file="$state/log/munged.log" --seed-file="$state/munge/munge.seed"

  cat > "$conf" <<EOF
# Written by tests/cluster/slurm.sh: a single-node test cluster.
ClusterName=crlrepro
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  if [ -e /etc/slurm/slurm.conf ] && ! grep -q "Written by tests/cluster/slurm.sh" /etc/slurm/slurm.conf; then
    log "/etc/slurm/slurm.conf exists and was not written by this script: not replacing it"; exit 1
  fi
  mkdir -p /etc/slurm && ln -sfn "$conf" /etc/slurm/slurm.conf
  export SLURM_CONF="$conf"
  slurmctld -f "$conf"
  slurmd -f "$conf"
  for _ in $(seq 120); do
    if sinfo --noheader --format=%T 2>/dev/null | grep -qx idle; then
      log "node $host idle ($cpus CPUs, $mem_mb MB)"
      echo "export SLURM_CONF=$conf"
      return 0
    fi
    sleep 0.5
  done
  log "the node did not become idle within 60 s; slurmctld log:"
  tail -n 20 "$state/log/slurmctld.log" >&2 || true
  tail -n 20 "$state/log/slurmd.log" >&2 || true
  exit 1
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop [STATE_DIR]" >&2; exit 2 ;;
esac
