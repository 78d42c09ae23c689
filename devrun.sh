#!/bin/bash
# H100 evidence + bench, from a non-editable install, run outside the checkout.
REPO=$(pwd); C=$1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site; rm -rf build; python3 -m pip install -q --no-deps --no-build-isolation . || exit 4
export PTXCONF_COMMIT=$C PTXCONF_CACHE_DIR=/tmp/c PTXCONF_KERNEL_CACHE=/tmp/c/k
mkdir -p $OUT/h100 /tmp/run && cd /tmp/run
s=$(date +%s.%N); ptxconf check --gpu on --report-dir $OUT/h100 > $OUT/h100/check.log 2>&1; rc=$?; e=$(date +%s.%N)
echo "cold: exit $rc, $(python3 -c "print(round($e-$s,2))") s wall" >> $OUT/h100/check.log
for i in 1 2 3; do s=$(date +%s.%N); ptxconf check --gpu on --report-dir /tmp/w$i --quiet > /tmp/w$i.log 2>&1; rc=$?; e=$(date +%s.%N); echo "warm $i: exit $rc, $(python3 -c "print(round($e-$s,2))") s wall; $(tail -1 /tmp/w$i.log)" >> $OUT/h100/check.log; done
for i in 1 2 3; do s=$(date +%s.%N); ptxconf check --gpu off --report-dir /tmp/o$i --quiet > /dev/null 2>&1; e=$(date +%s.%N); echo "gpu off warm $i: $(python3 -c "print(round($e-$s,2))") s wall" >> $OUT/h100/check.log; done
ptxconf check --gpu on --report-dir /tmp/w9 --annotations github | grep -c "^::warning" >> $OUT/h100/check.log
cd $REPO && python3 -m pytest -m gpu -q -n 4 --dist loadgroup -p no:cacheprovider > $OUT/h100/pytest_gpu.log 2>&1; echo "pytest -m gpu exit $?" >> $OUT/h100/check.log
cd /tmp/run && ptxconf bench --out $OUT/bench_h100.json > /tmp/bench.log 2>&1; echo "bench exit $?" >> $OUT/h100/check.log; tail -12 /tmp/bench.log >> $OUT/h100/check.log
tail -30 $OUT/h100/check.log
