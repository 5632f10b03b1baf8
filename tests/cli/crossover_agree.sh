#!/bin/sh
# crossover_agree.sh: memory-bound's crossover note (R-CHK-032) is the same
# figure in the plain lint, under --report and in JSON, and it is the
# smallest batch at which the op reaches the ridge, checked on both sides
# of it.  Mixtral-8x7B decode (examples/mixtral_8x7b_decode.roof, H200):
# g = matmul(h, w1) in `experts 8 top 2` with D = 4096, F = 14336 and
# B tokens, each run by K = 2 experts (R-MOE-002):
#   FLOPs  2 * 2B * D * F
#   bytes  (B*D + B*F) * 2 B * 2 (the tokens' activations, twice)
#          + D * F * 2 B * touched, touched = 8/e * (1 - 0.75^(e*B))
# so I(B) = 4B*D*F / (4B*(D + F) + 2*D*F*touched), against the ridge
# 990e12 / 4.8e12 = 206.25 FLOP/B.  e = 1: I(882) = 206.226,
# I(883) = 206.445, so B >= 883.  e = EP = 8 (one expert a GPU, the 8 GPUs
# route 8B tokens): I(110) = 205.789, I(111) = 207.538, so B >= 111.
# u = matmul(h, w3) has g's shapes; y = matmul(g, w2) the transposed ones,
# the same FLOPs and bytes: the same crossover.
. tests/cli/driver_lib.inc
F=examples/mixtral_8x7b_decode.roof

# json_g FILE: g's bound and intensity (4 decimals) in a --format json log.
json_g() {
  /usr/bin/python3 -c 'import json, sys
n = [n for n in json.load(open(sys.argv[1]))["models"][0]["nodes"] if n["name"] == "g"][0]
print(n["bound"], "%.4f" % n["intensity"])' "$1"
}
# crossovers FILE: the crossover figures of the memory-bound findings.
crossovers() {
  /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
print(" ".join(str(int(x["figures"]["crossover"])) for x in d
               if x["check"] == "memory-bound" and "crossover" in x.get("figures", {})))' "$1"
}

for case in "883 882 206.2263 206.4449" "111 110 205.7889 207.5378 -D EP=8"; do
  set -- $case
  x=$1 below=$2 ib=$3 ix=$4
  shift 4
  run "$@" "$F"
  grep -o "'[a-z]*' reaches the compute roof at B >= [0-9]*" "$T/err" >"$T/plain"
  printf "'%s' reaches the compute roof at B >= $x\n" g u y >"$T/want"
  if cmp -s "$T/want" "$T/plain"; then ok; else what="rooflint $* $F"; bad "crossovers: $(tr '\n' ';' <"$T/plain")"; fi
  run --report "$@" "$F"
  grep -o "'[a-z]*' reaches the compute roof at B >= [0-9]*" "$T/err" >"$T/report"
  if cmp -s "$T/want" "$T/report"; then ok; else bad "--report crossovers: $(tr '\n' ';' <"$T/report")"; fi
  run --format json "$@" "$F"
  if [ "$(crossovers "$T/out")" = "$x $x $x" ]; then ok; else bad "JSON crossovers: $(crossovers "$T/out")"; fi
  run --format json -D B="$below" "$@" "$F"
  if [ "$(json_g "$T/out")" = "memory $ib" ]; then ok; else bad "g at B = $below: $(json_g "$T/out")"; fi
  run --format json -D B="$x" "$@" "$F"
  if [ "$(json_g "$T/out")" = "compute $ix" ]; then ok; else bad "g at B = $x: $(json_g "$T/out")"; fi
done
finish
