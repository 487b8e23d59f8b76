"""The compiled brood's parts (evo.ga.warm.BROOD_PARTS), which ``evo warm`` compiles in processes of
their own before the brood: they are compiled for exactly the argument types the brood calls them with, so
that the brood loads them from numba's cache instead of compiling them again (docs/performance.md, "Round
fifteen")."""

import subprocess
import sys
import textwrap

import pytest

from evo.ga import warm

# in a fresh interpreter (no overload left by another test): each part compiled (or loaded from numba's
# cache) for its signature, then the brood's own function typed as numba types it (its untyped passes, SSA
# included, then type inference; nothing lowered): every call it makes to a part must find that overload
TYPED = textwrap.dedent(
    """
    import numba as nb
    import numpy as np
    from numba.core import compiler
    from numba.core.compiler_machinery import FunctionPass, register_pass
    from numba.core.registry import cpu_target
    from numba.core.typed_passes import NopythonTypeInference

    from evo.ga import warm
    from evo.ga.creatures import random_creature
    from evo.ga.kernels import brood
    from evo.ga.kernels.parents import gathered
    from evo.ga.mutation import MutationPlan
    from evo.ga.settings import GASection, GenomeSection

    @register_pass(mutates_CFG=False, analysis_only=True)
    class Typed(FunctionPass):
        _name = "evo_test_typed_only"

        def __init__(self):
            FunctionPass.__init__(self)

        def run_pass(self, state):
            state.cr = state.typemap  # the pipeline's result: typing is all this test asks for
            return False

    class TypingOnly(compiler.CompilerBase):
        def define_pipelines(self):
            passes = compiler.DefaultPassBuilder.define_untyped_pipeline(self.state)
            passes.add_pass(NopythonTypeInference, "type inference")
            passes.add_pass(Typed, "typed")
            passes.finalize()
            return [passes]

    for part in warm.BROOD_PARTS:
        warm.warm_brood_part(part)
    before = {part: list(warm.part_functions(part)[0].overloads) for part in warm.BROOD_PARTS}
    rng = np.random.default_rng(0)
    genome, ga = GenomeSection(), GASection()
    parents = [random_creature(rng, genome), random_creature(rng, genome)]
    ops = brood.compiled_operators(genome, ga, MutationPlan.of(ga))
    # the arguments compiled_broods gives the brood
    seeds, rows, flags = np.zeros(1, np.int64), np.zeros((1, 2), np.int64), np.zeros((1, 4), np.bool_)
    args = (seeds, rows, flags, *gathered(parents), ops)
    options = compiler.Flags()
    options.nrt = True
    compiler.compile_extra(
        cpu_target.typing_context, cpu_target.target_context, brood._pairs.py_func,
        tuple(nb.typeof(a) for a in args), None, options, {}, pipeline_class=TypingOnly,
    )
    after = {part: list(warm.part_functions(part)[0].overloads) for part in warm.BROOD_PARTS}
    for part in warm.BROOD_PARTS:
        print(part, len(before[part]), len(after[part]), after[part] == before[part])
    """
)


def test_the_brood_calls_each_part_with_the_types_it_is_compiled_for():
    done = subprocess.run(
        [sys.executable, "-c", TYPED], capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")[:-1]
    assert lines == [f"{part} 1 1 True" for part in warm.BROOD_PARTS], done.stdout


def test_an_unknown_part_is_refused_naming_the_parts():
    with pytest.raises(
        ValueError, match="no part 'selection' of the compiled brood; the parts are crossover, mutation"
    ):
        warm.warm_brood_part("selection")
