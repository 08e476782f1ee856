#!/usr/bin/env bash
# Builds the embedded default model with this project's own trainers, reproducibly: skipgram
# base vectors and fastText-style subword vectors, each on one thread with a fixed seed
# (bit-identical runs), then AM training with a fixed seed and thread count, its n-gram table
# started from the subword vectors. MODEL.md records the settings and results.
#
#   bash scripts/build-default-model.sh [--install] [CORPUS_DIR]   (default: ../shared/data/corpus/general)
#
# Writes $OUT (default: $WORK/default.am). Only --install copies it over the tracked
# defaultmodel/default.am. WORK=dir keeps the intermediate files (base vectors, counts, subword
# vectors, weights, corpus index) there. NGRAMS (default 35000) bounds the n-gram table so that
# the model stays under 25 MB. About 40 minutes on 2 cores.
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

# 2. The form model: the same recipe with fastText's character n-grams (3–6, 2,000,000 buckets).
"$bin" train-embeddings "${common[@]}" --minn 3 --maxn 6 --bucket 2000000 --format binary \
  --out "$work/subwords.bin" --ngrams-out "$work/ngrams.bin"

# 3. AM on the base: its n-gram table the $ngrams n-grams found in the most words, mapped into the
#    base space and fine-tuned at 0.3× the learning rate, every base word mimicked; the serving
#    bundle stores vectors as int8.
"$bin" train --corpus "$corpus" --embeddings "$work/base.vec" --counts "$work/counts.txt" \
  --ngrams "$work/ngrams.bin" --ngrams-space "$work/subwords.bin" --ngram-max "$ngrams" \
  --ngram-lr-scale 0.3 --min-count-train 5 \
  --mode am --seed 1 --threads 2 --storage int8 --bundle-oov-max-count 0 \
  --out "$work/am.am" --bundle-out "$out" --work-dir "$work" --quiet

ls -l "$out"
if [ "$install" = yes ]; then
  cp "$out" defaultmodel/default.am
  echo "build-default-model: installed $out as defaultmodel/default.am (intermediates in $work)"
else
  echo "build-default-model: wrote $out (intermediates in $work; --install copies it to defaultmodel/default.am)"
fi
