#!/usr/bin/env bash
# Builds the embedded default model with this project's own trainers, reproducibly, in one space:
# fastText-style subword skipgram vectors (words plus their character 3–6-grams) on one thread with
# a fixed seed and a shuffled line order (bit-identical runs on one CPU; a CPU whose SIMD kernels
# round differently gives a model that differs in the last bits), then AM training with a fixed seed
# and thread count on those word vectors, its n-gram table started from the same model's n-gram
# vectors (no map between spaces). docs/model.md records the settings and results.
#
#   bash scripts/build-default-model.sh [--install] [CORPUS ...]   (default: ../shared/data/corpus/general)
#
# Usage and settings: bash scripts/build-default-model.sh --help.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: bash scripts/build-default-model.sh [--install] [CORPUS ...]

Builds a serving bundle (a model for serve --model or TEXT2VEC_AM_MODEL) from the corpus paths:
text or .gz files, or directories of them, all read as one corpus (general and domain text can
be given side by side). Relative paths are taken from the current directory. Without a path: the
project's own corpus, ../shared/data/corpus/general from the repository root.

  --install   copy the model over the tracked defaultmodel/default.am (refused at 25 MB or more)
  -h, --help  print this help

Settings, as environment variables (NAME=value before the command):
  WORK=DIR          the intermediate files (kept after the build); default: a new temporary directory
  OUT=FILE          the model written; default: $WORK/model.am (serve names a model by its file name
                    without .am: here "model")
  DIM=N             dimensions of the vectors (default 200)
  EPOCHS=N          epochs of step 1, the subword model or FASTTEXT=train's fastText (default 10)
  AM_EPOCHS=N       epochs of step 2, AM (default 20)
  NGRAMS=N          n-grams in the model's table (default 140000; 72000 with HOLD_FORMS)
  FORM_SHARE=S      step 2's --form-share, 0 < S < 1 (default 0.5; 0.3 with FASTTEXT)
  GATE_COVERAGE=0   AM without the gate's coverage input (default 1: with it)
  HOLD_FORMS=P      the held-forms variant (docs/model.md, "A model whose contexts pay"; default 0: off)
  FASTTEXT=FILE     step 1 takes a fastText model's vectors (a .bin with character n-grams) instead of
                    training the subword model: AM on fastText's vectors (import-fasttext; the
                    vectors' dimension is the model's: DIM, EPOCHS and HOLD_FORMS do not apply)
  FASTTEXT=train    step 1 trains fastText (its `fasttext` command, 0.9.2; FASTTEXT_COMMAND=PATH names
                    another) on the corpus as `text2vec-am tokenize` writes it, DIM-d for EPOCHS epochs on
                    one thread (repeatable), and imports it as FASTTEXT=FILE does
  MAX_WORDS=N       with FASTTEXT: keep the model's N most frequent words and their n-grams (default:
                    all; a published model of 2 M words wants 200000 or so)

Run again with the same WORK, corpus and settings, a build continues where it stopped: step 1's
files, once complete, are used again, an unfinished step 1 resumes from its checkpoint
($WORK/subwords.bin.ckpt), and step 2 from its own ($WORK/am.am.ckpt).
About 1 minute per million corpus tokens on 2 cores at the default settings (FASTTEXT=train: 7 more,
fastText on one thread); DIM=50 EPOCHS=2 AM_EPOCHS=2 make a quick trial. docs/model.md, "Training
your own model on your corpus".
USAGE
}

# Settings, in detail: step 1 (the subword model, nearly all of the time) trains DIM-d vectors for
# EPOCHS epochs; step 2 (AM) trains for AM_EPOCHS epochs; each writes a checkpoint after every epoch
# and on Ctrl-C. WORK keeps step 1's files (subwords.bin, counts.txt, ngrams.bin; step1.settings
# once they are complete; its checkpoint and step1.started until then) and step 2's (am.am, the
# corpus index, step2.settings; the checkpoint until the bundle is written). NGRAMS bounds the
# n-gram table; --install refuses a model of 25 MB or more.
# HOLD_FORMS=P (default 0) builds the held-forms variant instead: the fraction P of the words seen
# 100 times or more held out of their n-grams' training, and AM trained on those words alone
# (docs/model.md, "A model whose contexts pay"), with whole forms, int8 base vectors and NGRAMS
# 72000 by default, as docs/evaluation.md measured it: its vectors follow the contexts more; the
# tracked model is built without it.
# GATE_COVERAGE=0 (default 1) builds AM without the gate's coverage input (`train --gate-coverage`),
# the recipe of the tables in docs/evaluation.md that say so.
# FORM_SHARE=S (a decimal, 0 < S < 1, default 0.5) is step 2's `--form-share`: a training word's
# form leaves out the n-grams of which it holds more than S of the occurrences (0.25 lets the
# contexts add more to a new word's vector and costs retrieval a little: docs/evaluation.md). Its
# default with FASTTEXT is 0.3, which docs/evaluation.md chose for AM on fastText's vectors. It does
# not apply to HOLD_FORMS builds, which train on whole forms.

caller=$PWD
root=$(cd "$(dirname "$0")/.." && pwd)
# abspath prints $1 as an absolute path, a relative one taken from the caller's directory.
abspath() {
  case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$caller/$1" ;;
  esac
}

install=no
corpora=()
while [ $# -gt 0 ]; do
  case $1 in
    --install) install=yes ;;
    -h | --help) usage; exit 0 ;;
    --) shift; for p in "$@"; do corpora+=("$(abspath "$p")"); done; break ;;
    -*) echo "build-default-model: unknown option $1 (the options are --install and --help)" >&2; exit 2 ;;
    *) corpora+=("$(abspath "$1")") ;;
  esac
  shift
done
[ ${#corpora[@]} -gt 0 ] || corpora=("$root/../shared/data/corpus/general")

# posint NAME VALUE exits with status 2 unless VALUE is a whole number from 1 to 999999.
posint() {
  if ! [[ $2 =~ ^[1-9][0-9]{0,5}$ ]]; then
    echo "build-default-model: $1 must be a whole number from 1 to 999999, got $2" >&2
    exit 2
  fi
}
dim=${DIM:-200}; posint DIM "$dim"
epochs=${EPOCHS:-10}; posint EPOCHS "$epochs"
am_epochs=${AM_EPOCHS:-20}; posint AM_EPOCHS "$am_epochs"
coverage=(--gate-coverage)
case ${GATE_COVERAGE:-1} in
  1) ;;
  0) coverage=() ;;
  *) echo "build-default-model: GATE_COVERAGE must be 0 or 1, got ${GATE_COVERAGE}" >&2; exit 2 ;;
esac
form_share=${FORM_SHARE:-0.5}
[ -z "${FASTTEXT:-}" ] || form_share=${FORM_SHARE:-0.3}
if ! [[ $form_share =~ ^0?\.[0-9]+$ ]] || ! awk -v s="$form_share" 'BEGIN { exit !(s + 0 > 0 && s + 0 < 1) }'; then
  echo "build-default-model: FORM_SHARE must be a decimal strictly between 0 and 1 such as 0.25, got ${form_share}" >&2
  exit 2
fi
hold=${HOLD_FORMS:-0}
if [ -n "${FORM_SHARE:-}" ] && [ "$hold" != 0 ]; then
  echo "build-default-model: FORM_SHARE does not apply to a HOLD_FORMS build, which trains on whole forms" >&2
  exit 2
fi
fasttext=; max_words=0
if [ -n "${MAX_WORDS:-}" ]; then
  [ -n "${FASTTEXT:-}" ] || { echo "build-default-model: MAX_WORDS applies with FASTTEXT only" >&2; exit 2; }
  max_words=$MAX_WORDS; posint MAX_WORDS "$max_words"
fi
if [ -n "${FASTTEXT_COMMAND:-}" ] && [ "${FASTTEXT:-}" != train ]; then
  echo "build-default-model: FASTTEXT_COMMAND applies with FASTTEXT=train only" >&2
  exit 2
fi
if [ "${FASTTEXT:-}" = train ]; then
  if [ "$hold" != 0 ]; then
    echo "build-default-model: HOLD_FORMS does not apply with FASTTEXT=train, which trains fastText's own recipe" >&2
    exit 2
  fi
  ft_command=${FASTTEXT_COMMAND:-fasttext}
  if ! command -v "$ft_command" >/dev/null; then
    echo "build-default-model: FASTTEXT=train runs fastText's command $ft_command, which is not found:" \
      "install fastText 0.9.2 (apt-get install fasttext) or name it with FASTTEXT_COMMAND" >&2
    exit 2
  fi
elif [ -n "${FASTTEXT:-}" ]; then
  for v in DIM EPOCHS HOLD_FORMS; do
    if [ -n "${!v:-}" ]; then
      echo "build-default-model: $v does not apply with FASTTEXT=FILE, whose model gives step 1's vectors" >&2
      exit 2
    fi
  done
  fasttext=$(abspath "$FASTTEXT")
  [ -f "$fasttext" ] || { echo "build-default-model: FASTTEXT $fasttext is not a file" >&2; exit 2; }
fi
for c in "${corpora[@]}"; do
  [ -e "$c" ] || { echo "build-default-model: corpus $c not found" >&2; exit 2; }
done
work=$(abspath "${WORK:-$(mktemp -d)}")
out=$(abspath "${OUT:-$work/model.am}")
if [ "$install" = yes ] && [ "$(realpath -m "$out")" = "$(realpath -m "$root/defaultmodel/default.am")" ]; then
  echo "build-default-model: OUT is defaultmodel/default.am, which --install copies the model to;" \
    "leave OUT unset or name another file" >&2
  exit 2
fi
hold_sub=(); hold_am=()
form=(--shared-form --form-share "$form_share"); base_storage=int4; ngrams=${NGRAMS:-140000}
if [ "$hold" != 0 ]; then
  hold_sub=(--hold-forms "$hold" --hold-min-count 100 --held-words-out "$work/held.txt")
  hold_am=(--only-words "$work/held.txt")
  form=(); base_storage=int8; ngrams=${NGRAMS:-72000}
fi
limit=$((25 * 1000 * 1000))

# corpus_files prints, NUL-terminated, the files the trainers read for the corpus paths "$@", in
# their order: a path to a file is that file; a directory (or a link to one) gives the files below
# it and the links to files there, names starting with "." skipped, sorted bytewise per directory.
corpus_files() {
  local p
  for p in "$@"; do
    if [ -f "$p" ]; then
      printf '%s\0' "$p"
    else
      find -H "$p" -mindepth 1 -name '.*' -prune -o \( -type f -o -type l -xtype f \) -print0 | LC_ALL=C sort -z
    fi
  done
}
# What a step's files were made from: the corpus files in the order read (path, size and time of
# the file a link points to) and the settings. A run with the same WORK uses step 1's files again,
# and resumes an unfinished step 1 or step 2, only when they are the same.
step1=$(
  if [ "${FASTTEXT:-}" = train ]; then
    printf 'fasttext train %s dim %s epochs %s\n' "$(command -v "$ft_command")" "$dim" "$epochs"
    printf 'max_words %s ngrams %s\n' "$max_words" "$ngrams"
  elif [ -n "$fasttext" ]; then
    stat -L -c 'fasttext %n %s %.9Y' "$fasttext"
    printf 'max_words %s ngrams %s\n' "$max_words" "$ngrams"
  else
    printf 'dim %s epochs %s hold %s\n' "$dim" "$epochs" "$hold"
  fi
  corpus_files "${corpora[@]}" | xargs -0 -r stat -L -c '%n %s %.9Y'
)
step2=$(printf '%s\nam_epochs %s form_share %s coverage %s ngrams %s\n' \
  "$step1" "$am_epochs" "$form_share" "${GATE_COVERAGE:-1}" "$ngrams")
# An unfinished step 1 (its checkpoint there, step1.settings not the same) resumes from its
# checkpoint when step1.started, what it was started from, is the same; it is refused otherwise.
ckpt1="$work/subwords.bin.ckpt"
resume1=()
if [ -e "$ckpt1" ] && [ "$(cat "$work/step1.settings" 2>/dev/null)" != "$step1" ]; then
  if [ "$(cat "$work/step1.started" 2>/dev/null)" != "$step1" ]; then
    echo "build-default-model: $ckpt1 is the checkpoint of a build with another corpus or other settings;" \
      "delete it or choose another WORK" >&2
    exit 2
  fi
  resume1=(--resume "$ckpt1")
fi
ckpt="$work/am.am.ckpt"
resume=()
if [ -e "$ckpt" ]; then
  if [ "$(cat "$work/step2.settings" 2>/dev/null)" != "$step2" ]; then
    echo "build-default-model: $ckpt is the checkpoint of a build with another corpus or other settings;" \
      "delete it or choose another WORK" >&2
    exit 2
  fi
  resume=(--resume "$ckpt")
fi
mkdir -p "$work"

bin="$work/text2vec-am"
(cd "$root" && go build -o "$bin" .)

# 1. The subword model: DIM-d (200) skipgram over words and their character 3–6-grams (fastText's
#    recipe: window 5, 5 negatives from unigram^0.5, lr 0.05, min-count 5) but a row of its own
#    for every n-gram instead of fastText's 2,000,000 hashed buckets (docs/model.md) and EPOCHS
#    (10) epochs (twice fastText's 5: docs/model.md), corpus lines in an order drawn from the
#    seed. Its word vectors are AM's base. A checkpoint of an interrupted run of the same build is
#    resumed (train-embeddings --resume: on one thread, the same vectors as a run never
#    interrupted). With FASTTEXT, step 1 takes the fastText model's word vectors, the NGRAMS
#    n-grams of its table step 2 keeps, and counts instead (import-fasttext); FASTTEXT=train trains
#    that model first, fastText 0.9.2's skipgram with its defaults but DIM, EPOCHS and one thread
#    (the run is then repeatable), on the corpus as the tokenizer reads it (tokenize).
corpus_flags=()
for c in "${corpora[@]}"; do corpus_flags+=(--corpus "$c"); done
if [ "$(cat "$work/step1.settings" 2>/dev/null)" = "$step1" ]; then
  echo "build-default-model: step 1 done in an earlier run with this corpus and these settings; using $work/subwords.bin"
else
  rm -f "$work/step1.settings"
  if [ ${#resume1[@]} -gt 0 ]; then
    echo "build-default-model: step 1 resumes from $ckpt1"
  fi
  printf '%s\n' "$step1" >"$work/step1.started"
  if [ "${FASTTEXT:-}" = train ]; then
    "$bin" tokenize "${corpus_flags[@]}" --out "$work/tokens.txt"
    "$ft_command" skipgram -input "$work/tokens.txt" -output "$work/fasttext" -dim "$dim" -epoch "$epochs" \
      -minn 3 -maxn 6 -thread 1
    fasttext="$work/fasttext.bin"
  fi
  if [ -n "$fasttext" ]; then
    "$bin" import-fasttext --fasttext "$fasttext" --max-words "$max_words" --ngrams-max "$ngrams" \
      --out "$work/subwords.bin" --counts-out "$work/counts.txt" --ngrams-out "$work/ngrams.bin"
  else
    "$bin" train-embeddings "${corpus_flags[@]}" --dim "$dim" --window 5 --negative 5 --min-count 5 \
      --epochs "$epochs" --lr 0.05 --neg-power 0.5 --threads 1 --seed 1 --shuffle \
      --minn 3 --maxn 6 --bucket 0 --format binary "${hold_sub[@]}" \
      --out "$work/subwords.bin" --counts-out "$work/counts.txt" --ngrams-out "$work/ngrams.bin" "${resume1[@]}"
  fi
  printf '%s\n' "$step1" >"$work/step1.settings"
  rm -f "$ckpt1" "$work/step1.started"
fi

# 2. AM on them with the paper's protocol and four additions (AM_EPOCHS, 20, epochs; a gate that
#    knows how many contexts it has, whether they agree and how little of the word's spelling the
#    n-grams know; SIF-weighted context words; a training word's form without the n-grams it holds
#    more than FORM_SHARE (half by default) of the occurrences of, as a new word's form is), its
#    n-gram table started from the subword model's own n-gram vectors (the NGRAMS found in the most
#    vocabulary words) and kept frozen (AM learns its gate, A and the attention on them); the
#    serving bundle stores the n-grams and the base vectors as int4 (docs/model.md). A checkpoint
#    of an interrupted run of the same build is resumed.
if [ ${#resume[@]} -gt 0 ]; then
  echo "build-default-model: step 2 resumes from $ckpt"
fi
printf '%s\n' "$step2" >"$work/step2.settings"
"$bin" train "${corpus_flags[@]}" --embeddings "$work/subwords.bin" --counts "$work/counts.txt" \
  --mode am --seed 1 --threads 2 --storage int4 --base-storage "$base_storage" --bundle-oov-max-count 0 \
  --ngrams "$work/ngrams.bin" --ngram-max "$ngrams" --ngram-lr-scale 0 "${form[@]}" \
  --epochs "$am_epochs" --count-buckets 7 --gate-agreement --context-sif 1e-3 "${coverage[@]}" "${hold_am[@]}" \
  --out "$work/am.am" --bundle-out "$out" --work-dir "$work" --quiet "${resume[@]}"
rm -f "$ckpt"

ls -l "$out"
if [ "$install" = yes ]; then
  size=$(stat -c %s "$out")
  if [ "$size" -ge "$limit" ]; then
    echo "build-default-model: $out is $size bytes, not under 25 MB, and not installed; lower NGRAMS" >&2
    exit 1
  fi
  cp "$out" "$root/defaultmodel/default.am"
  echo "build-default-model: installed $out as defaultmodel/default.am (intermediates in $work)"
else
  echo "build-default-model: wrote $out (intermediates in $work; --install copies it to defaultmodel/default.am)"
fi
