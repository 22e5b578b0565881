#!/bin/sh
# End-to-end tests of tessel-run on the hand-written fixtures: exit codes,
# printed outputs, diagnostics, --output-dir and --expected.
#
# usage: tessel-run-test.sh TESSEL_RUN ADD_SO ADD345_SO AND_SO FAILS_SO
#                           ONNX_NAME_SO ONNX_NODE_TESTS WORK_DIR PARALLEL_SO
#                           DYNAMIC_SO PADDED_SO
# (ctest runs it with TESSEL_NUM_THREADS=4: a pool of 4 threads.)
set -u

run=$1 add=$2 add345=$3 andso=$4 fails=$5 onnxname=$6 suite=$7 work=$8
parallel=$9 dynamic=${10} padded=${11}
failures=0

rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# npy_23 FILE DESCR SHAPE DATA: a .npy file whose header dict is 59 bytes
# long (as for '<f4' and a shape like (2, 3)), padded to 128 bytes as NumPy
# pads it. DATA is a printf format of octal escapes.
npy_23() {
  {
    printf '\223NUMPY\001\000\166\000'
    printf "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" "$2" "$3"
    printf '%58s\n' ''
    printf "$4"
  } >"$1"
}
one='\000\000\200\077' two='\000\000\000\100' three='\000\000\100\100'
four='\000\000\200\100' five='\000\000\240\100' six='\000\000\300\100'
half='\000\000\000\077'
npy_23 a.npy '<f4' '(2, 3)' "$one$two$three$four$five$six"
npy_23 b.npy '<f4' '(2, 3)' "$half$half$half$half$half$half"
npy_23 a24.npy '<f4' '(2, 4)' "$one$two$three$four$five$six$one$two"
npy_23 i32.npy '<i4' '(2, 3)' "$one$two$three$four$five$six"
printf 'not a tensor' >garbage.pb

# check NAME EXPECTED_EXIT COMMAND...: runs COMMAND, keeping its output in
# out.txt and err.txt, and checks its exit status.
check() {
  name=$1 expected=$2
  shift 2
  "$@" >out.txt 2>err.txt
  status=$?
  if [ "$status" -ne "$expected" ]; then
    echo "FAIL: $name: exit $status, expected $expected"
    sed 's/^/  stdout: /' out.txt
    sed 's/^/  stderr: /' err.txt
    failures=$((failures + 1))
    return 1
  fi
  return 0
}

# contains NAME FILE TEXT: FILE holds the line fragment TEXT.
contains() {
  if ! grep -qF -- "$3" "$2"; then
    echo "FAIL: $1: $2 lacks '$3'"
    sed 's/^/  /' "$2"
    failures=$((failures + 1))
  fi
}

check help 0 "$run" --help && contains help out.txt 'usage: tessel-run MODEL.so'
check no-arguments 2 "$run" && contains no-arguments err.txt 'usage:'

check positional 0 "$run" "$add" --input a.npy b.npy &&
  contains positional out.txt 'y: float32[2,3] = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]'
check named 0 "$run" "$add" --input b=b.npy --input a=a.npy &&
  contains named out.txt 'y: float32[2,3] = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]'
check quiet 0 "$run" "$add" --input a.npy --input b.npy --quiet --threads 1 &&
  if [ -s out.txt ]; then echo "FAIL: quiet: printed output"; failures=$((failures + 1)); fi

# --threads is the session's thread budget: the add fixture's parallel loop
# gives the same sum on any count, and the parallel fixture reports what it
# was told (info[0]: services->num_threads, capped at the pool's 4 threads;
# info[1]: the chunks of [0, 1000) at grain 1, 4 per thread).
for threads in 1 2 3 0; do
  check "threads-$threads" 0 "$run" "$add" --input a.npy b.npy --threads "$threads" &&
    contains "threads-$threads" out.txt 'y: float32[2,3] = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]'
done
# params.npy: int64[4] {begin 0, end 1000, grain 1, mode 0}; the header dict
# is 57 bytes, padded to 128 bytes in all.
{
  printf '\223NUMPY\001\000\166\000'
  printf "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }"
  printf '%60s\n' ''
  printf '\000\000\000\000\000\000\000\000\350\003\000\000\000\000\000\000'
  printf '\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
} >params.npy
check parallel-1 0 "$run" "$parallel" --input params.npy --threads 1 &&
  contains parallel-1 out.txt 'info: int64[8] = [1, 1, 1, 1, 1, 0, 0, 0]'
check parallel-3 0 "$run" "$parallel" --input params.npy --threads 3 &&
  contains parallel-3 out.txt 'info: int64[8] = [3, 12,' &&
  contains parallel-3 out.txt 'visits: int32[4096] = [1, 1, 1, 1, 1, 1, 1, 1, ...]'
check parallel-9 0 "$run" "$parallel" --input params.npy --threads 9 &&
  contains parallel-9 out.txt 'info: int64[8] = [4, 16,'

# exists NAME FILE: FILE was written.
exists() {
  if [ ! -f "$2" ]; then
    echo "FAIL: $1: $2 was not written"
    failures=$((failures + 1))
  fi
}

check output-dir 0 "$run" "$add" --input a.npy b.npy --output-dir out/sub &&
  exists output-dir out/sub/y.npy
check output-dir-is-a-file 2 "$run" "$add" --input a.npy b.npy --output-dir a.npy &&
  contains output-dir-is-a-file err.txt 'a.npy: error[E0031]: cannot create the output directory' &&
  if [ -s out.txt ]; then echo "FAIL: output-dir-is-a-file: ran the model"; failures=$((failures + 1)); fi
check expected-ok 0 "$run" "$add" --input a.npy b.npy --expected out/sub/y.npy &&
  contains expected-ok out.txt 'y: max_abs_err=0 max_rel_err=0 mismatches=0/6 (rtol=0.001, atol=1e-05) OK'
check expected-mismatch 1 "$run" "$add" --input a.npy b.npy --expected y=a.npy --rtol 0 --atol 0.25 &&
  contains expected-mismatch out.txt 'y: max_abs_err=0.5 max_rel_err=0.5 mismatches=6/6 (rtol=0, atol=0.25) MISMATCH'
check expected-tolerance 0 "$run" "$add" --input a.npy b.npy --expected a.npy --atol=0.5 --rtol=0 --quiet &&
  contains expected-tolerance out.txt 'mismatches=0/6 (rtol=0, atol=0.5) OK'
check expected-type 2 "$run" "$add" --input a.npy b.npy --expected a24.npy &&
  contains expected-type err.txt "a24.npy: error[E0041]: output 'y' expects float32[2,3], got float32[2,4]"

check onnx-name 0 "$run" "$onnxname" --input a.npy b.npy --output-dir names &&
  contains onnx-name out.txt '/fc1/Gemm_output_0: float32[2,3]' &&
  exists onnx-name names/_fc1_Gemm_output_0.npy

check wrong-shape 2 "$run" "$add" --input a24.npy b.npy &&
  contains wrong-shape err.txt "a24.npy: error[E0041]: input 'a' expects float32[2,3], got float32[2,4]"
check wrong-dtype 2 "$run" "$add" --input a.npy b=i32.npy &&
  contains wrong-dtype err.txt "i32.npy: error[E0041]: input 'b' expects float32[2,3], got int32[2,3]"
check unknown-name 2 "$run" "$add" --input c=a.npy b.npy &&
  contains unknown-name err.txt "tessel-run: error[E0041]: 'c' is not an input of the model; its inputs are: 'a' float32[2,3], 'b' float32[2,3]"
check missing-input 2 "$run" "$add" --input a.npy &&
  contains missing-input err.txt "tessel-run: error[E0041]: missing input 'b' float32[2,3]"
check too-many-inputs 2 "$run" "$add" --input a.npy b.npy a.npy &&
  contains too-many-inputs err.txt 'too many input files'
check twice 2 "$run" "$add" --input a=a.npy a=b.npy &&
  contains twice err.txt "input 'a' is given twice"
check garbage 2 "$run" "$add" --input garbage.pb b.npy &&
  contains garbage err.txt 'garbage.pb: error[E0040]: not a .npy file, and not an ONNX TensorProto'
check missing-file 2 "$run" "$add" --input nothere.npy b.npy &&
  contains missing-file err.txt 'nothere.npy: error[E0040]: cannot open file: No such file or directory'
check bad-option 2 "$run" "$add" --frobnicate && contains bad-option err.txt "unknown option '--frobnicate'"
check bad-rtol 2 "$run" "$add" --input a.npy b.npy --rtol abc &&
  contains bad-rtol err.txt "--rtol expects a non-negative number, got 'abc'"
check bad-threads 2 "$run" "$add" --input a.npy b.npy --threads -1 &&
  contains bad-threads err.txt "--threads expects a count"
check empty-input-flag 2 "$run" "$add" --input --quiet &&
  contains empty-input-flag err.txt '--input needs at least one file'
check no-model 2 "$run" --input a.npy && contains no-model err.txt 'no model given'

check missing-model 3 "$run" nothere.so --input a.npy &&
  contains missing-model err.txt "nothere.so: error[E0001]: cannot open 'nothere.so': No such file or directory"
check not-a-model 3 "$run" a.npy --input a.npy &&
  contains not-a-model err.txt "a.npy: error[E0050]: 'a.npy' is not an ELF shared object"
check entry-fails 3 "$run" "$fails" --input a.npy b.npy &&
  contains entry-fails err.txt "error[E0052]: " &&
  contains entry-fails err.txt "entry 'add_entry' failed with code 7"

# A dynamic batch (fixtures/dynamic_batch_model.c: x float32[N,3] and bias
# float32[N,1], N in 1..16, -> y = x + bias and the batch of the entry
# that ran each row): any batch in the range, the same for every input.
# npy NAME SHAPE COUNT: a float32 .npy of COUNT elements, each 0.5, its
# header padded to 128 bytes.
npy() {
  dict="{'descr': '<f4', 'fortran_order': False, 'shape': $2, }"
  {
    printf '\223NUMPY\001\000\166\000%s' "$dict"
    printf "%$((117 - ${#dict}))s\n" ''
    i=0
    while [ "$i" -lt "$3" ]; do printf "$half"; i=$((i + 1)); done
  } >"$1"
}
npy bias2.npy '(2, 1)' 2
npy bias1.npy '(1, 1)' 1
npy x17.npy '(17, 3)' 51
npy bias17.npy '(17, 1)' 17
check dynamic 0 "$run" "$dynamic" --input a.npy bias2.npy &&
  contains dynamic out.txt 'y: float32[2,3] = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]' &&
  contains dynamic out.txt 'batch: int32[2,1] = [1, 1]'
check dynamic-expected 0 "$run" "$dynamic" --input a.npy bias2.npy --quiet \
  --expected y=b.npy --atol 10 &&
  contains dynamic-expected out.txt 'y: max_abs_err=6 max_rel_err=12 mismatches=0/6'
check dynamic-expected-batch 2 "$run" "$dynamic" --input a.npy bias2.npy \
  --expected y=x17.npy &&
  contains dynamic-expected-batch err.txt "x17.npy: error[E0041]: output 'y' expects float32[2,3], got float32[17,3]"
check dynamic-range 2 "$run" "$dynamic" --input x17.npy bias17.npy &&
  contains dynamic-range err.txt "x17.npy: error[E0041]: input 'x' expects float32[N=1..16,3], got float32[17,3]"
check dynamic-mismatch 2 "$run" "$dynamic" --input a.npy bias1.npy &&
  contains dynamic-mismatch err.txt "bias1.npy: error[E0041]: input 'bias' has batch 1, but input 'x' has batch 2 (dimension 0, 'N', is the same for every input)"
check dynamic-missing 2 "$run" "$dynamic" --input a.npy &&
  contains dynamic-missing err.txt "missing input 'bias' float32[N=1..16,1]"

# A padded dimension (fixtures/padded_model.c: x float32[1,S,2] and w
# float32[1,S], S in 1..8 on entries of length 4 and 8, -> y = x + w + the
# sum of x[0,:,0] and the length of the entry that ran): any length in the
# range, the same for every input; the outputs have that length.
npy xs3.npy '(1, 3, 2)' 6
npy ws3.npy '(1, 3)' 3
npy ws5.npy '(1, 5)' 5
npy xs9.npy '(1, 9, 2)' 18
npy ws9.npy '(1, 9)' 9
check padded 0 "$run" "$padded" --input xs3.npy ws3.npy &&
  contains padded out.txt 'y: float32[1,3,2] = [2.5, 2.5, 2.5, 2.5, 2.5, 2.5]' &&
  contains padded out.txt 'length: int32[1,1] = [4]'
check padded-expected 2 "$run" "$padded" --input xs3.npy ws3.npy \
  --expected y=xs9.npy &&
  contains padded-expected err.txt "xs9.npy: error[E0041]: output 'y' expects float32[1,3,2], got float32[1,9,2]"
check padded-range 2 "$run" "$padded" --input xs9.npy ws9.npy &&
  contains padded-range err.txt "xs9.npy: error[E0041]: input 'x' expects float32[1,S=1..8,2], got float32[1,9,2]"
check padded-mismatch 2 "$run" "$padded" --input xs3.npy ws5.npy &&
  contains padded-mismatch err.txt "ws5.npy: error[E0041]: input 'w' has length 5 in dimension 1 ('S'), but an input before it has 3 (the same for every input)"

# Against the ONNX test suite's own data, when it is installed.
if [ -d "$suite/test_add/test_data_set_0" ]; then
  d=$suite/test_add/test_data_set_0
  check onnx-add 0 "$run" "$add345" --input "$d/input_0.pb" "$d/input_1.pb" \
    --expected "$d/output_0.pb" --quiet &&
    contains onnx-add out.txt 'sum: max_abs_err=0 max_rel_err=0 mismatches=0/60'
  d=$suite/test_and2d/test_data_set_0
  check onnx-and 0 "$run" "$andso" --input y="$d/input_1.pb" x="$d/input_0.pb" \
    --expected "$d/output_0.pb" &&
    contains onnx-and out.txt 'and: bool[3,4] = [true, true, true, true, true, false, true, false, ...]' &&
    contains onnx-and out.txt 'and: max_abs_err=0 max_rel_err=0 mismatches=0/12'
  check onnx-wrong-file 2 "$run" "$andso" --input "$suite/test_relu/test_data_set_0/input_0.pb" "$d/input_1.pb" &&
    contains onnx-wrong-file err.txt "input_0.pb: error[E0041]: input 'x' expects bool[3,4], got float32[3,4,5]"
else
  echo "note: the ONNX test suite is not at $suite; skipping its cases"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures tessel-run check(s) failed"
  exit 1
fi
echo "all tessel-run checks passed"
