"""``python -m tensortrace.saved_model_cli show``: the tag sets, signatures, inputs, outputs, ops
and concrete functions of a SavedModel in TF's format, printed as TF's ``saved_model_cli``
prints them. It reads only the protocol buffers: nothing in the model runs.

    python -m tensortrace.saved_model_cli show --dir DIR --all
    python -m tensortrace.saved_model_cli show --dir DIR --tag_set serve --signature_def NAME
"""

import argparse
import collections.abc
import sys

from . import _protos
from .saving import structure_coder, tf_files
from .tensor import TensorSpec

_CALLS = ("PartitionedCall", "StatefulPartitionedCall")


def main(argv=None):
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    parser = argparse.ArgumentParser(prog="saved_model_cli", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    show_parser = commands.add_parser("show", help="Show information about a SavedModel.")
    show_parser.add_argument("--dir", required=True, help="directory of the SavedModel")
    show_parser.add_argument("--all", action="store_true", help="show everything")
    show_parser.add_argument("--tag_set", help="comma-separated tags of a MetaGraphDef")
    show_parser.add_argument("--signature_def", help="a SignatureDef key")
    show_parser.add_argument("--list_ops", action="store_true", help="list the ops used")
    args = parser.parse_args(argv)
    show(args.dir, all=args.all, tag_set=args.tag_set, signature_def=args.signature_def,
         list_ops=args.list_ops)
    return 0


def show(saved_model_dir, all=False, tag_set=None, signature_def=None, list_ops=False):
    """Print what ``saved_model_cli show`` prints for these flags."""
    if all:
        _show_all(saved_model_dir)
    elif tag_set is None:
        if list_ops:
            print("--list_ops must be paired with a tag-set or with --all.")
        print("The given SavedModel contains the following tag-sets:")
        proto = tf_files.read_saved_model(saved_model_dir)
        for tags in sorted(sorted(mg.meta_info_def.tags) for mg in proto.meta_graphs):
            print(repr(", ".join(tags)))
    else:
        mg = _meta_graph(saved_model_dir, tag_set)
        if list_ops:
            _show_ops(mg)
        if signature_def is None:
            print("The given SavedModel MetaGraphDef contains SignatureDefs with the following "
                  "keys:")
            for key in sorted(mg.signature_def):
                print(f'SignatureDef key: "{key}"')
        else:
            _show_inputs_outputs(mg, signature_def, 0)


def _meta_graph(saved_model_dir, tag_set):
    tags = [t.strip() for t in tag_set.split(",") if t.strip()]
    if not tags:
        raise ValueError("tag_set must contain at least one non-empty item.")
    valid = []
    for mg in tf_files.read_saved_model(saved_model_dir).meta_graphs:
        if set(mg.meta_info_def.tags) == set(tags):
            return mg
        valid.append(",".join(mg.meta_info_def.tags))
    raise RuntimeError(f"MetaGraphDef associated with tag-set {','.join(tags)} could not be "
                       f"found in the SavedModel. Please use one of the following tag-sets: "
                       f"{valid}")


def _show_all(saved_model_dir):
    proto = tf_files.read_saved_model(saved_model_dir)
    for mg in sorted(proto.meta_graphs, key=lambda m: list(m.meta_info_def.tags)):
        print(f"\nMetaGraphDef with tag-set: '{', '.join(mg.meta_info_def.tags)}' contains the "
              "following SignatureDefs:")
        for key in sorted(mg.signature_def):
            print(f"\nsignature_def['{key}']:")
            _show_inputs_outputs(mg, key, 1)
        _show_ops(mg)
    if any(mg.HasField("object_graph_def") for mg in proto.meta_graphs):
        _show_functions(proto.meta_graphs[0])


def _show_inputs_outputs(mg, key, indent):
    if key not in mg.signature_def:
        raise ValueError(f'Could not find signature "{key}". Please choose from: '
                         f'{", ".join(mg.signature_def.keys())}')
    signature = mg.signature_def[key]
    pad = "  " * indent
    print(pad + "The given SavedModel SignatureDef contains the following input(s):")
    for name in sorted(signature.inputs):
        print(pad + f"  inputs['{name}'] tensor_info:")
        _print_tensor_info(signature.inputs[name], indent + 1)
    print(pad + "The given SavedModel SignatureDef contains the following output(s):")
    for name in sorted(signature.outputs):
        print(pad + f"  outputs['{name}'] tensor_info:")
        _print_tensor_info(signature.outputs[name], indent + 1)
    print(pad + f"Method name is: {signature.method_name}")


def _print_tensor_info(info, indent):
    pad = "  " * indent
    print(pad + "    dtype: " + _protos.types_pb2.DataType.Name(info.dtype))
    shape = info.tensor_shape
    text = "unknown_rank" if shape.unknown_rank else \
        "(" + ", ".join(str(d.size) for d in shape.dim) + ")"
    print(pad + "    shape: " + text)
    print(pad + "    name: " + info.name)


def ops_used(graph_def):
    """The op types a GraphDef's nodes use, following function calls into the library (TF's
    ``ops_used_by_graph_def``: other functional attrs are not followed)."""
    library = {f.signature.name: f for f in graph_def.library.function}
    used, pending = set(), []

    def mark(op):
        if op not in used and op in library:
            pending.append(library[op])
        used.add(op)

    def visit(node):
        mark(node.op)
        if node.op in _CALLS:
            mark(node.attr["f"].func.name)

    for node in graph_def.node:
        visit(node)
    while pending:
        for node in pending.pop().node_def:
            visit(node)
    return {op for op in used if op not in library}


def _show_ops(mg):
    print(f"The MetaGraph with tag set {list(mg.meta_info_def.tags)} contains the following "
          "ops:", ops_used(mg.graph_def))


def load_order(library):
    """The order TF's loader restores a library's functions in (a depth-first topological sort
    over calls, the last ready function first): restored names get increasing ids in it."""
    names = [f.signature.name for f in library.function]
    known = set(names)
    edges, waiting = collections.defaultdict(list), collections.Counter()
    for f in library.function:
        deps = set()
        for node in f.node_def:
            if node.op in known:
                deps.add(node.op)
            for value in node.attr.values():
                if value.WhichOneof("value") == "func" and value.func.name in known:
                    deps.add(value.func.name)
                elif value.WhichOneof("value") == "list":
                    deps.update(fn.name for fn in value.list.func if fn.name in known)
        for dep in deps:
            edges[dep].append(f.signature.name)
            waiting[f.signature.name] += 1
    ready = [n for n in names if not waiting[n]]
    order = []
    while ready:
        name = ready.pop()
        order.append(name)
        for dest in edges[name]:
            waiting[dest] -= 1
            if not waiting[dest]:
                ready.append(dest)
    return {name: i for i, name in enumerate(order)}


def _show_functions(mg):
    graph = mg.object_graph_def
    print("\nConcrete Functions:", end="")
    if not graph.nodes:
        return
    rank = load_order(mg.graph_def.library)
    for child in sorted(graph.nodes[0].children, key=lambda c: c.local_name):
        if not 0 <= child.node_id < len(graph.nodes):
            continue
        node = graph.nodes[child.node_id]
        kind = node.WhichOneof("kind")
        if kind == "bare_concrete_function":
            names = [node.bare_concrete_function.concrete_function_name]
        elif kind == "function":
            names = list(node.function.concrete_functions)
        else:
            continue
        print(f"\n  Function Name: '{child.local_name}'")
        names.sort(key=lambda n: rank.get(n, len(rank)))
        for index, name in enumerate(names, 1):
            args, kwargs = _input_signature(graph, name, node)
            if args:
                print(f"    Option #{index}")
                print("      Callable with:")
                _print_args(args, indent=4)
            if kwargs:
                _print_args(kwargs, "Named Argument", indent=4)


def _input_signature(graph, name, node):
    saved = graph.concrete_functions.get(name) if name in graph.concrete_functions else None
    if saved is not None and saved.HasField("canonicalized_input_signature"):
        signature = structure_coder.decode(saved.canonicalized_input_signature,
                                           f"the input signature of {name}")
        if signature:
            return signature
    if node.WhichOneof("kind") == "bare_concrete_function":
        return list(node.bare_concrete_function.argument_keywords), None
    return None, None


def _print_args(arguments, argument_type="Argument", indent=0):
    pad = "  " * indent

    def quoted(value):
        return f"'{value}'" if isinstance(value, str) else str(value)

    for index, element in enumerate(arguments, 1):
        if indent == 4:
            print(pad + f"{argument_type} #{index}")
        if isinstance(element, str):
            print(pad + f"  {element}")
        elif type(element) is TensorSpec:  # TF's VariableSpec is no TensorSpec
            print((indent + 1) * "  " + f"{element.name}: {element!r}")
        elif isinstance(element, collections.abc.Iterable) and not isinstance(element, dict):
            print(pad + f"  DType: {type(element).__name__}")
            print(pad + "  Value: [", end="")
            for value in element:
                print(quoted(value), end=", ")
            print("\b\b]")
        elif isinstance(element, dict):
            print(pad + f"  DType: {type(element).__name__}")
            print(pad + "  Value: {", end="")
            for key, value in element.items():
                print(f"'{key}': {quoted(value)}", end=", ")
            print("\b\b}")
        else:
            print(pad + f"  DType: {type(element).__name__}")
            print(pad + f"  Value: {element}")


if __name__ == "__main__":
    sys.exit(main())
