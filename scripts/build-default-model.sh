#!/usr/bin/env bash
# Rebuilds the embedded default model, defaultmodel/default.am, with this project's own
# trainers, reproducibly: skipgram on one thread with a fixed seed (bit-identical runs), then
# AM training with a fixed seed and thread count. MODEL.md records the settings and results.
#
#   bash scripts/build-default-model.sh [CORPUS_DIR]        (default: ../shared/data/corpus/general)
#
# WORK=dir keeps the intermediate files (base vectors, counts, weights, corpus index) there.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/data/corpus/general}
work=${WORK:-$(mktemp -d)}
[ -e "$corpus" ] || { echo "build-default-model: corpus $corpus not found" >&2; exit 2; }
mkdir -p "$work"

go build -o "$work/text2vec-am" .
bin="$work/text2vec-am"

# 1. Base embeddings: 200-d skipgram (window 5, 5 negatives from unigram^0.5, lr 0.05, min-count 5, 5 epochs).
"$bin" train-embeddings --corpus "$corpus" --out "$work/base.vec" --counts-out "$work/counts.txt" \
  --dim 200 --window 5 --negative 5 --min-count 5 --epochs 5 --lr 0.05 --neg-power 0.5 --threads 1 --seed 1

# 2. AM on them with the paper's protocol; the serving bundle stores vectors as int8.
"$bin" train --corpus "$corpus" --embeddings "$work/base.vec" --counts "$work/counts.txt" \
  --mode am --seed 1 --threads 2 --storage int8 --bundle-oov-max-count 0 \
  --out "$work/am.am" --bundle-out "$work/default.am" --work-dir "$work" --quiet

cp "$work/default.am" defaultmodel/default.am
ls -l defaultmodel/default.am
echo "build-default-model: wrote defaultmodel/default.am (intermediates in $work)"
