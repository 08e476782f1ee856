#!/usr/bin/env bash
# Builds the embedded default model with this project's own trainers, reproducibly: skipgram and
# fastText-style subword vectors (the form model), each on one thread with a fixed seed
# (bit-identical runs), then AM training with a fixed seed and thread count, its n-gram table
# started from the subword vectors. MODEL.md records the settings and results.
#
#   bash scripts/build-default-model.sh [--install] [CORPUS_DIR]   (default: ../shared/data/corpus/general)
#
# Writes $OUT (default: $WORK/default.am); only --install copies it over the tracked
# defaultmodel/default.am. WORK=dir keeps the intermediate files (base vectors, counts, weights,
# corpus index) there. NGRAMS (default 35000) bounds the n-gram table (the model stays under
# 25 MB). FORM_MODEL=0 builds the earlier model (AM's own 3–5-gram vocabulary). About 45 minutes
# on 2 quiet cores.
set -euo pipefail
cd "$(dirname "$0")/.."
install=no
if [ "${1:-}" = --install ]; then install=yes; shift; fi
corpus=${1:-../shared/data/corpus/general}
work=${WORK:-$(mktemp -d)}
out=${OUT:-$work/default.am}
ngrams=${NGRAMS:-35000}
[ -e "$corpus" ] || { echo "build-default-model: corpus $corpus not found" >&2; exit 2; }
mkdir -p "$work"

go build -o "$work/text2vec-am" .
bin="$work/text2vec-am"
common=(--corpus "$corpus" --dim 200 --window 5 --negative 5 --min-count 5 --epochs 5 --lr 0.05
  --neg-power 0.5 --threads 1 --seed 1)

# 1. Base embeddings: 200-d skipgram (window 5, 5 negatives from unigram^0.5, lr 0.05, min-count 5, 5 epochs).
"$bin" train-embeddings "${common[@]}" --out "$work/base.vec" --counts-out "$work/counts.txt"

form=()
if [ "${FORM_MODEL:-1}" = 1 ]; then
  # 1b. The form model: the same recipe with fastText's character n-grams (3–6, 2,000,000 buckets).
  "$bin" train-embeddings "${common[@]}" --minn 3 --maxn 6 --bucket 2000000 --format binary \
    --out "$work/subwords.bin" --ngrams-out "$work/ngrams.bin"
  form=(--ngrams "$work/ngrams.bin" --ngrams-space "$work/subwords.bin" --ngram-max "$ngrams"
    --ngram-lr-scale 0.3)
fi

# 2. AM on them with the paper's protocol; the serving bundle stores vectors as int8.
"$bin" train --corpus "$corpus" --embeddings "$work/base.vec" --counts "$work/counts.txt" \
  --mode am --seed 1 --threads 2 --storage int8 --bundle-oov-max-count 0 "${form[@]}" \
  --out "$work/am.am" --bundle-out "$out" --work-dir "$work" --quiet

ls -l "$out"
if [ "$install" = yes ]; then
  cp "$out" defaultmodel/default.am
  echo "build-default-model: installed $out as defaultmodel/default.am (intermediates in $work)"
else
  echo "build-default-model: wrote $out (intermediates in $work; --install copies it to defaultmodel/default.am)"
fi
