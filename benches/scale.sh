#!/usr/bin/env bash
# Scale benchmark: generated OKF bundles of 1k/10k/100k concepts; `folio stats` (full load,
# link graph, catalog check) timed against `rg -c .` reading the same files, warm and cold
# cache, plus folio's peak RSS. Prints a markdown table (paste into docs/benchmarks.md).
#
#   benches/scale.sh [SIZES...]        default: 1000 10000 100000
#   SCALE_DIR=/tmp/folio-scale RUNS=5 benches/scale.sh
#
# Cold runs drop the page cache (`echo 3 > /proc/sys/vm/drop_caches`): that needs root and
# slows everything else on the machine for a moment; they are skipped when not permitted.
set -euo pipefail

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

printf '| concepts | MB | links | load_ms | stats warm ms | rg warm ms | ratio warm | stats cold ms | rg cold ms | ratio cold | peak RSS MB | RSS bytes/concept |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
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

    warm=$(mktemp)
    hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$warm" "rg -c . $store" "$FOLIO stats $store" >&2
    rg_w=$(mean_ms "$warm" 0); folio_w=$(mean_ms "$warm" 1)

    rg_c=-; folio_c=-; ratio_c=-
    if [ $can_drop = yes ]; then
        cold=$(mktemp)
        hyperfine --runs "$COLD_RUNS" --prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' --export-json "$cold" \
            "rg -c . $store" "$FOLIO stats $store" >&2
        rg_c=$(mean_ms "$cold" 0); folio_c=$(mean_ms "$cold" 1)
        ratio_c=$(python3 -c "print(f'{$folio_c/$rg_c:.2f}')")
    fi
    rss_kb=$( { /usr/bin/time -v "$FOLIO" stats "$store" >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident/ {print $2}')
    ratio_w=$(python3 -c "print(f'{$folio_w/$rg_w:.2f}')")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$n" "$mb" "$links" "$load_ms" "$folio_w" "$rg_w" "$ratio_w" "$folio_c" "$rg_c" "$ratio_c" \
        "$((rss_kb / 1024))" "$((rss_kb * 1024 / n))"
done
