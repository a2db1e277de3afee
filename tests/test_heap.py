"""tools/server/gc_policy.py: survivors of a full collection are frozen, and every RECHECK-th one walks the whole heap,
so a cycle that died while frozen is still collected. Run in a child interpreter: the collector's state is
global, and the test suite's own process must keep the default."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent("""
    import gc, json, weakref
    from code_intel.server import gc_policy as heap

    class Node:
        pass

    steps = {}
    heap.install(recheck=3)
    heap.install(recheck=3)  # idempotent: one callback
    steps["callbacks"] = sum(1 for c in gc.callbacks if type(c).__name__ == "_FreezeAfterFullCollections")
    node = Node()
    node.self = node  # a cycle: only the collector can free it
    probe = weakref.ref(node)
    gc.collect()  # full collection 1: the survivors, the cycle among them, are frozen
    steps["frozen_after_first"] = gc.get_freeze_count()
    del node
    gc.collect()  # 2: the frozen cycle is not seen; the heap is unfrozen for the next one
    steps["alive_after_second"] = probe() is not None
    steps["frozen_after_second"] = gc.get_freeze_count()
    gc.collect()  # 3: walks the whole heap, finds the dead cycle, then freezes the survivors again
    steps["alive_after_third"] = probe() is not None
    steps["frozen_after_third"] = gc.get_freeze_count()
    heap.uninstall()
    steps["frozen_after_uninstall"] = gc.get_freeze_count()
    steps["callbacks_after_uninstall"] = sum(1 for c in gc.callbacks if type(c).__name__ == "_FreezeAfterFullCollections")
    print(json.dumps(steps))
""")


def test_full_collections_freeze_survivors_and_every_recheck_walks_everything() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
    steps = json.loads(done.stdout.strip().splitlines()[-1])
    assert steps["callbacks"] == 1
    assert steps["frozen_after_first"] > 1000  # the interpreter's and the imports' objects, the cycle with them
    assert steps["alive_after_second"] is True  # frozen: the collector no longer looks at it
    assert steps["frozen_after_second"] == 0  # unfrozen for the whole-heap walk
    assert steps["alive_after_third"] is False  # the third (recheck=3) walk found it
    assert steps["frozen_after_third"] > 1000
    assert steps["frozen_after_uninstall"] == 0
    assert steps["callbacks_after_uninstall"] == 0
