#!/usr/bin/env bash
# Scale benchmark: generated OKF bundles of 1k/10k/100k concepts; `folio stats` (full load,
# link graph, catalog check), `folio lint` and `folio index --check` timed against `rg -c .`
# reading the same files, warm and cold cache, plus folio's peak RSS. Prints a markdown table
# (paste into docs/benchmarks.md and the README).
#
#   benches/scale.sh [SIZES...]        default: 1000 10000 100000
#   SCALE_DIR=/tmp/folio-scale RUNS=5 benches/scale.sh
#   QUICK=1 benches/scale.sh 1000 10000   one run each, no cold cache (a smoke run, not a measurement)
#
# Also times `folio lint` and `folio index --check` in the same hyperfine run and prints the
# 10× scaling of each between consecutive sizes. `scripts/bench-vs-floor` runs it for 10k and 100k.
#
# Cold runs drop the page cache (`echo 3 > /proc/sys/vm/drop_caches`): that needs root and
# slows everything else on the machine for a moment; they are skipped when not permitted.
set -euo pipefail
# The table measures the full load (walk, read, parse, resolve), not a re-open from the
# persistent cache; `FOLIO_NO_CACHE=0 benches/scale.sh` measures the cached path instead.
export FOLIO_NO_CACHE=${FOLIO_NO_CACHE:-1}

cd "$(dirname "$0")/.."
SIZES=("${@:-1000 10000 100000}")
read -r -a SIZES <<<"${SIZES[*]}"
SCALE_DIR=${SCALE_DIR:-/tmp/folio-scale}
RUNS=${RUNS:-5}
COLD_RUNS=${COLD_RUNS:-3}

need() {
    command -v "$1" >/dev/null && return
    echo "installing $2 …" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y "$2" >/dev/null || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }
    else sudo apt-get install -y "$2" >/dev/null; fi
}
need rg ripgrep
need hyperfine hyperfine
[ -x /usr/bin/time ] || need /usr/bin/time time

cargo build --release --bins >&2
FOLIO=$PWD/target/release/folio
GEN=$PWD/target/release/folio-gen

can_drop=no
if sync 2>/dev/null && echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then can_drop=yes; fi
echo "cold-cache runs: $can_drop" >&2

mean_ms() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["mean"]*1000))' "$@"; }
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }

if [ "${QUICK:-0}" = 1 ]; then RUNS=1; WARMUP=0; can_drop=no; else WARMUP=1; fi

printf '| concepts | MB | links | load_ms | stats warm ms | rg warm ms | **stats/rg warm** | lint ms | **lint/stats** | index --check ms | **index/stats** | stats cold ms | rg cold ms | **stats/rg cold** | peak RSS MB | RSS bytes/concept |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
declare -A STATS LINT INDEX
for n in "${SIZES[@]}"; do
    store=$SCALE_DIR/okf-$n
    if [ ! -e "$store/.generated" ]; then
        rm -rf "$store"
        "$GEN" --dialect okf --entities "$n" --out "$store" --seed 1 >&2
        touch "$store/.generated"
    fi
    mb=$(du -sm --apparent-size "$store" | cut -f1)
    json=$("$FOLIO" stats "$store" --json)
    links=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["links"])' "$json")
    load_ms=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["load_ms"])' "$json")

    # One hyperfine run for all four commands: the ratios compare runs made in the same minute.
    # lint and index --check exit 1 when they find something (-i keeps the timing).
    warm=$(mktemp)
    hyperfine -N -i --warmup "$WARMUP" --runs "$RUNS" --export-json "$warm" \
        "rg -c . $store" "$FOLIO stats $store" "$FOLIO lint $store" "$FOLIO index --check $store" >&2
    rg_w=$(mean_ms "$warm" 0); folio_w=$(mean_ms "$warm" 1); lint_w=$(mean_ms "$warm" 2); index_w=$(mean_ms "$warm" 3)
    STATS[$n]=$folio_w; LINT[$n]=$lint_w; INDEX[$n]=$index_w

    rg_c=-; folio_c=-; ratio_c=-
    if [ $can_drop = yes ]; then
        cold=$(mktemp)
        hyperfine --runs "$COLD_RUNS" --prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' --export-json "$cold" \
            "rg -c . $store" "$FOLIO stats $store" >&2
        rg_c=$(mean_ms "$cold" 0); folio_c=$(mean_ms "$cold" 1)
        ratio_c=$(ratio "$folio_c" "$rg_c")
    fi
    rss_kb=$( { /usr/bin/time -v "$FOLIO" stats "$store" >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident/ {print $2}')
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$n" "$mb" "$links" "$load_ms" "$folio_w" "$rg_w" "$(ratio "$folio_w" "$rg_w")" \
        "$lint_w" "$(ratio "$lint_w" "$folio_w")" "$index_w" "$(ratio "$index_w" "$folio_w")" \
        "$folio_c" "$rg_c" "$ratio_c" "$((rss_kb / 1024))" "$((rss_kb * 1024 / n))"
done

# Scaling between consecutive sizes (target: ≤ 11× for 10× the concepts).
prev=
for n in "${SIZES[@]}"; do
    if [ -n "$prev" ]; then
        printf '\n%s → %s concepts: stats %s×, lint %s×, index --check %s×\n' "$prev" "$n" \
            "$(ratio "${STATS[$n]}" "${STATS[$prev]}")" "$(ratio "${LINT[$n]}" "${LINT[$prev]}")" \
            "$(ratio "${INDEX[$n]}" "${INDEX[$prev]}")"
    fi
    prev=$n
done
