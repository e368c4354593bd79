# SPDX-License-Identifier: GPL-2.0
"""The runner of the command-line test files: @test registers a function;
run_all() calls each, prints "ok NAME" or "not ok NAME: why", and ends with
"N passed, N failed" (make check's line); its value is the exit status."""
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def run_all():
    passed = failed = 0
    for t in TESTS:
        try:
            t()
            print(f"ok {t.__name__}")
            passed += 1
        except Exception as e:                 # report and go on
            print(f"not ok {t.__name__}: {type(e).__name__}: {e}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
