#!/usr/bin/env bash
# tools/slurm-local.sh start|stop|status -- a single-node Slurm on this machine (munged, slurmctld,
# slurmd from Debian's slurm-wlm and munge packages), for CI and for trying the Slurm path
# (SLURM=1, docs in REPRODUCE.md) without a cluster. Needs root. start writes a minimal
# slurm.conf under $SLURM_LOCAL_DIR (default /tmp/kb-slurm; one partition "kb" holding this node,
# all its CPUs, no GPUs, no cgroups: proctrack/linuxproc, task/none), starts the three daemons and
# waits until the node is idle; stop ends them. On a real cluster none of this is needed.
set -euo pipefail
cmd=${1:?usage: tools/slurm-local.sh start|stop|status}
D=${SLURM_LOCAL_DIR:-/tmp/kb-slurm}
conf=$D/slurm.conf
export SLURM_CONF=$conf
need() { command -v "$1" >/dev/null || { echo "slurm-local: $1 not found (apt-get install slurm-wlm munge)" >&2; exit 2; }; }
case $cmd in
start)
    for b in munged slurmctld slurmd sinfo srun; do need $b; done
    [ "$(id -u)" = 0 ] || { echo "slurm-local: start needs root (the daemons run as root here)" >&2; exit 2; }
    mkdir -p "$D"/{spool,state,log} /etc/munge /var/log/munge /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown -R munge:munge /etc/munge /var/log/munge /run/munge 2>/dev/null || true
    chmod 0700 /etc/munge && chmod 0400 /etc/munge/munge.key
    # the daemons' stdio goes nowhere (they log to files): a CI log pipe is never held open
    if ! pgrep -x munged >/dev/null; then
        { runuser -u munge -- munged --force || munged --force; } </dev/null >/dev/null 2>&1
        touch "$D/munged.ours" # stop ends only a munged that start started
    fi
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
    cat > "$conf" <<EOF
ClusterName=kb
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=kb Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    pgrep -x slurmctld >/dev/null || slurmctld -f "$conf" </dev/null >/dev/null 2>&1
    pgrep -x slurmd >/dev/null || slurmd -f "$conf" </dev/null >/dev/null 2>&1
    for _ in $(seq 60); do
        if sinfo -h -o '%t' 2>/dev/null | grep -qx 'idle'; then
            echo "slurm-local: node $host idle ($cpus CPUs), SLURM_CONF=$conf"
            exit 0
        fi
        sleep 1
    done
    echo "slurm-local: the node did not come up in 60 s; logs:" >&2
    tail -n 20 "$D"/log/*.log >&2 || true
    exit 1
    ;;
stop)
    pkill -x slurmd 2>/dev/null || true
    pkill -x slurmctld 2>/dev/null || true
    if [ -e "$D/munged.ours" ]; then
        pkill -x munged 2>/dev/null || true
        rm -f "$D/munged.ours"
    fi
    for _ in $(seq 30); do # gone, so that a start right after starts them afresh
        pgrep -x slurmd >/dev/null || pgrep -x slurmctld >/dev/null || pgrep -x slurmscriptd >/dev/null || break
        sleep 0.5
    done
    echo "slurm-local: stopped"
    ;;
status)
    sinfo
    ;;
*)
    echo "usage: tools/slurm-local.sh start|stop|status" >&2
    exit 2
    ;;
esac
