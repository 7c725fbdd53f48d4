#!/bin/sh
# DevEval's way: build with the project's makefile, run on the inputs, compare the outputs
make >/dev/null || { echo "make failed"; exit 1; }
./rpn inputs/1.txt > "$TMPDIR/1.out" || { echo "rpn failed"; exit 1; }
diff "$TMPDIR/1.out" expected_outputs/1.txt || { echo "output differs"; exit 1; }
echo "acceptance: ok"
