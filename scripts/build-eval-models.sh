#!/usr/bin/env bash
# Builds the d = 100 models the evaluations of docs/evaluation.md name "ours", with this project's own
# trainers and fixed seeds: skipgram base vectors and counts of the general corpus, fastText-style
# subword vectors (the form model), then AM (its n-grams started from the subword vectors) and
# FCM (full models), AM-ctx and FCM-ctx (trained context-only, for eval chimeras) and the AM
# serving bundle (for eval retrieval).
#
#   WORK=dir bash scripts/build-eval-models.sh [CORPUS_DIR]   (default: ../shared/data/corpus/general)
#
# Writes into $WORK (default: a new temporary directory): base.vec, counts.txt, subwords.bin,
# ngrams.bin, am.am, am.bundle.am, fcm.am, context.am, fcm-context.am and a log per step (each
# step's checkpoint is removed once the step has finished). About
# 15 minutes on 2 cores. The subword step runs Hogwild on 2 threads (as measured in docs/evaluation.md), so
# it and the AM models differ slightly from run to run; everything else is bit-identical.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/data/corpus/general}
work=${WORK:-$(mktemp -d)}
[ -e "$corpus" ] || { echo "build-eval-models: corpus $corpus not found" >&2; exit 2; }
mkdir -p "$work"

go build -o "$work/text2vec-am" .
bin="$work/text2vec-am"

# 1. Base embeddings: 100-d skipgram with the defaults of train-embeddings (window 5, 5 negatives
#    from unigram^0.5, lr 0.05, min-count 5, 5 epochs), one thread and a fixed seed: bit-identical runs.
"$bin" train-embeddings --corpus "$corpus" --out "$work/base.vec" --counts-out "$work/counts.txt" \
  --dim 100 --threads 1 --seed 1 2> "$work/base.log"
rm -f "$work/base.vec.ckpt" # a finished run's checkpoint: nothing to resume

# 2. The form model: fastText's subword skipgram (character n-grams 3–6 in 2,000,000 buckets,
#    the word vector the mean of the word's and its n-grams' rows), its n-gram vectors kept.
#    (The models docs/evaluation.md reports: --shuffle and train --count-buckets are measured there as
#    options, "The subword trainer against fastText" and "A gate that knows how many contexts
#    it has", and are not used here, so that this script rebuilds what those sections report.)
"$bin" train-embeddings --corpus "$corpus" --out "$work/subwords.bin" --format binary \
  --ngrams-out "$work/ngrams.bin" --dim 100 --minn 3 --maxn 6 --bucket 2000000 --threads 2 --seed 1 2> "$work/subwords.log"
rm -f "$work/subwords.bin.ckpt" # about 800 MB

# 3. The mimicking models with the paper's protocol, one per mode. AM starts its n-gram table
#    from the subword vectors mapped into the base space (--ngrams-space), fine-tunes it at 0.3×
#    the learning rate and mimics every base word (count ≥ 5, --min-count-train 5); FCM, AM-ctx
#    and FCM-ctx are the paper's models (FCM with its own n-gram vocabulary).
for mode in am fcm context fcm-context; do
  extra=()
  [ "$mode" = am ] && extra=(--bundle-out "$work/am.bundle.am" --ngrams "$work/ngrams.bin"
    --ngrams-space "$work/subwords.bin" --ngram-lr-scale 0.3 --min-count-train 5)
  "$bin" train --corpus "$corpus" --embeddings "$work/base.vec" --counts "$work/counts.txt" \
    --mode "$mode" --seed 1 --threads 2 --out "$work/$mode.am" --work-dir "$work" --quiet "${extra[@]}" \
    2> "$work/$mode.log"
  rm -f "$work/$mode.am.ckpt"
done
echo "build-eval-models: models in $work"
