# collab bench agent: an "instant" stand-in for an agent CLI, run as `bash agent.sh`.
#
# Bash, not Python, so that the agent's own start-up is ~2 ms and the figures measure
# collab rather than an interpreter. It ignores the prompt on stdin, optionally sleeps
# $BENCH_AGENT_SLEEP seconds, prints $BENCH_AGENT_REPLY (a claude --output-format json
# document) and, as its very last act, appends "PID START END" (CLOCK_REALTIME seconds
# with microseconds, from $EPOCHREALTIME) to $BENCH_AGENT_LOG. With BENCH_AGENT_TAG=1 it
# adds the path its stdin comes from (the turn's prompt file: it names the run's temp dir).
t0=$EPOCHREALTIME
if [[ -n ${BENCH_AGENT_SLEEP:-} ]]; then
    sleep "$BENCH_AGENT_SLEEP"
fi
if [[ -n ${BENCH_AGENT_REPLY:-} ]]; then
    cat -- "$BENCH_AGENT_REPLY"
fi
if [[ -n ${BENCH_AGENT_LOG:-} ]]; then
    t1=$EPOCHREALTIME
    if [[ -n ${BENCH_AGENT_TAG:-} ]]; then
        printf '%s %s %s %s\n' "$$" "$t0" "$t1" "$(readlink /proc/$$/fd/0)" >>"$BENCH_AGENT_LOG"
    else
        printf '%s %s %s\n' "$$" "$t0" "$t1" >>"$BENCH_AGENT_LOG"
    fi
fi
exit 0
