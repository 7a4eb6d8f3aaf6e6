"""GraphDefs of traced functions with control flow read as TF 2.21's: If/While nodes, the
``cond/Identity`` outputs, library functions whose nodes sit under the control-flow node's
scope and return through Identity nodes, reductions' ``Const`` axes. Recorded from TF by
``tests/fixtures/tf/make_graph_def_nodes.py``."""

import importlib.util
import json
import pathlib

import pytest

import tensortrace as tf

FIXTURES = pathlib.Path(__file__).parent.parent / "fixtures" / "tf"
_spec = importlib.util.spec_from_file_location("make_graph_def_nodes",
                                               FIXTURES / "make_graph_def_nodes.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
EXPECTED = json.loads((FIXTURES / "graph_def_nodes" / "nodes.json").read_text())
CASES = {name: (fn, specs) for name, fn, specs in make.cases(tf)}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_graph_def_nodes_are_tfs(name):
    fn, specs = CASES[name]
    graph = tf.function(fn).get_concrete_function(*specs).graph
    assert make.nodes(graph.as_graph_def()) == EXPECTED[name]
