# gdb_plan.py: runs the GDB commands of the file named by the convenience
# variable $plan_file one by one, as `gdb -batch -ex ...` would: an error
# is printed (as GDB prints it) and the next command runs, where a GDB
# command file would stop at the first error.
# Usage: gdb -batch -ex 'set $plan_file = "FILE"' -x gdb_plan.py
import gdb

path = gdb.parse_and_eval("$plan_file").string()
with open(path) as f:
    for line in f:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        try:
            gdb.execute(line)
        except gdb.error as e:
            gdb.flush()
            print(e)
        gdb.flush()
