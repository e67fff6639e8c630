# test/shell/tap.bash — TAP output for the shell tests (test/shell/*.sh), which
# scripts/test.sh runs with prove.  Source it; end the test with tap_done.
TAP_COUNT=0
TAP_FAILED=0

tap_result() {  # tap_result STATUS NAME [DIAGNOSTIC...]
    local status=$1 name=$2
    shift 2
    TAP_COUNT=$((TAP_COUNT + 1))
    if [ "$status" -eq 0 ]; then
        echo "ok $TAP_COUNT - $name"
    else
        TAP_FAILED=$((TAP_FAILED + 1))
        echo "not ok $TAP_COUNT - $name"
        local line
        for line in "$@"; do printf '%s\n' "$line" | sed 's/^/# /'; done
    fi
}

# tap_ok NAME COMMAND...: passes when COMMAND exits 0 (its output shown on failure)
tap_ok() {
    local name=$1 out status
    shift
    out="$("$@" 2>&1)" && status=0 || status=$?
    tap_result "$status" "$name" "exit status $status" "$out"
}

# tap_is GOT WANT NAME
tap_is() {
    [ "$1" = "$2" ] && tap_result 0 "$3" || tap_result 1 "$3" "got:  $1" "want: $2"
}

# tap_like TEXT REGEX NAME / tap_unlike TEXT REGEX NAME (grep -E, any line)
tap_like() {
    grep -qE -- "$2" <<<"$1" && tap_result 0 "$3" || tap_result 1 "$3" "no line matches /$2/ in:" "$1"
}
tap_unlike() {
    grep -qE -- "$2" <<<"$1" && tap_result 1 "$3" "a line matches /$2/ in:" "$1" || tap_result 0 "$3"
}

# tap_skip COUNT REASON: COUNT tests skipped
tap_skip() {
    local i
    for ((i = 0; i < $1; i++)); do
        TAP_COUNT=$((TAP_COUNT + 1))
        echo "ok $TAP_COUNT # SKIP $2"
    done
}

tap_done() {
    echo "1..$TAP_COUNT"
    [ "$TAP_FAILED" -eq 0 ]
}
