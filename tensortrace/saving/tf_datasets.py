"""tf.data pipelines inside TF-format saved functions, both ways.

A traced function holds a pipeline as one ``PythonDataset`` op whose attr is the Python dataset
tree. Saving writes that tree as the nodes TF writes (TensorSliceDataset, MapDataset with its
``f`` function, BatchDatasetV2, ..., ReduceDataset), and our iterator as TF's
AnonymousIteratorV3 + MakeIterator; loading rebuilds TF's dataset nodes as the Python datasets
(``Dataset.from_tensor_slices(x).map(f)`` with ``f`` the imported FunctionDef inlined where the
map traces it). A dataset kind without a TF node here is refused, naming TF's op.

Both directions register into the graph layer: ``tf_composites`` (export rules) and
``function_def`` (import handlers).
"""

import itertools

from .. import _protos, nest
from .. import dtypes as D
from ..context import state
from ..data import batching, combining, mapping, selection, sources, structure
from ..data.dataset import Dataset, DatasetArgument
from ..graph import function_def, tf_attrs, tf_composites
from ..graph.function_def import GraphImportError, _Partial
from ..graph.graph_def import ExportError
from ..tensor import EagerTensor

_NO_SEED = 0  # TF writes seed 0, seed2 0 for an unseeded shuffle


# --- export: the Python dataset tree as TF's nodes -------------------------------------------
class _Writer:
    """Writes one PythonDataset op's tree into a FunctionDef/GraphDef body."""

    def __init__(self, body, op):
        self.body, self.op = body, op
        ds = op.attrs["dataset"]
        # the op's inputs stand for the tree's symbolic tensors (captured into this graph)
        self.fed = {id(t): body.ref(x) for t, x in zip(ds._symbolic_inputs(), op.inputs)}
        self.done = {}

    def tensor(self, t, name="Const"):
        """The reference of a tensor the tree reads: fed by the op, or a constant."""
        if isinstance(t, EagerTensor):
            if t.dtype in (D.resource, D.variant):
                raise ExportError(f"op '{self.op.name}' (PythonDataset): a dataset reading a "
                                  f"{t.dtype.name} tensor captured from outside the function "
                                  "has no saved form here")
            return self.body.const(f"{self.op.name}/{name}", t._value, t.dtype)
        ref = self.fed.get(id(t))
        if ref is None:
            raise ExportError(f"op '{self.op.name}' (PythonDataset): tensor {t.name} is not an "
                              "input of the dataset op")
        return ref

    def int64(self, value, name):
        if isinstance(value, int):
            return self.body.const(f"{self.op.name}/{name}", value, D.int64)
        return self.tensor(value, name)

    def node(self, op_type, inputs, **attrs):
        sig = tf_attrs.signature(op_type)
        values = {}
        for k, v in attrs.items():
            values[k] = v if hasattr(v, "WhichOneof") else tf_attrs.encode(v, sig.attrs[k][0])
        for k, (kind, has, _) in sig.attrs.items():
            if k not in values and has:
                values[k] = tf_attrs.encode(tf_attrs.default(sig, k), kind)
        name = self.body.fresh(op_type)  # TF names a pipeline's nodes by their type
        node = self.body.add_node(name, op_type, inputs, values)
        return self.body.out_ref(node.name, op_type, node.attr, 0), node

    def function(self, fn):
        """A traced dataset function as a FunctionDef: its name (an attr) and the references
        of the values it captures (TF's ``other_arguments``)."""
        graph = fn.graph
        if any(s is None for s in graph.outputs):
            raise ExportError(f"op '{self.op.name}' (PythonDataset): a dataset function "
                              "returning None has no saved form")
        ex = self.body.exporter
        saved, ex.scope, ex.outer = (ex.scope, ex.outer), None, ""
        try:
            name = ex.function_name(graph)
        finally:
            ex.scope, ex.outer = saved
        av = _protos.attr_value_pb2.AttrValue()
        av.func.name = name
        av.func.attr["_tf_data_function"].b = True
        others = [self.tensor(v, "captured") for v, _ in graph.captures]
        return av, others, [v.dtype for v, _ in graph.captures]

    def dataset(self, ds):
        key = id(ds)
        if key not in self.done:
            self.done[key] = self._write(ds)
        return self.done[key]

    def _write(self, ds):
        rule = _WRITERS.get(type(ds))  # exact classes: a subclass (padded batch ...) differs
        if rule is None:
            raise ExportError(f"op '{self.op.name}' (PythonDataset): its "
                              f"{type(ds).__name__.lstrip('_')} has no TF dataset op in "
                              "tensortrace's saved functions yet")
        return rule(self, ds)


def _spec_attrs(spec, where, types_key="output_types"):
    flat = structure.flatten(spec)
    for s in flat:
        if not hasattr(s, "shape") or not hasattr(s, "dtype") or type(s).__name__ != "TensorSpec":
            raise ExportError(f"{where}: a dataset element of {structure.structure_text(spec)} "
                              "(not only tensors) has no saved form here")
    return {types_key: tuple(s.dtype for s in flat),
            "output_shapes": tuple(s.shape for s in flat)}


def _out(w, ds, types_key="output_types"):
    return _spec_attrs(ds.element_spec, f"op '{w.op.name}' (PythonDataset)", types_key)


def _w_slices(w, ds):
    if ds._groups is not None:
        raise ExportError(f"op '{w.op.name}' (PythonDataset): from_tensor_slices of composite "
                          "tensors has no saved form here")
    comps = [w.tensor(t, "component") for t in ds._tensors]
    return w.node("TensorSliceDataset", comps, **_out(w, ds, "Toutput_types"))[0]


def _w_tensors(w, ds):
    comps = [w.tensor(t, "component") for t in ds._tensors]
    return w.node("TensorDataset", comps, **_out(w, ds, "Toutput_types"))[0]


def _w_range(w, ds):
    bounds = [w.int64(v, n) for v, n in zip(ds._args, ("start", "stop", "step"))]
    return w.node("RangeDataset", bounds, **_out(w, ds))[0]


def _w_map(w, ds):
    f, others, types = w.function(ds._fn)
    return w.node("MapDataset", [w.dataset(ds._input)] + others, f=f, Targuments=tuple(types),
                  preserve_cardinality=True, **_out(w, ds))[0]


def _w_filter(w, ds, op_type="FilterDataset"):
    f, others, types = w.function(ds._fn)
    return w.node(op_type, [w.dataset(ds._input)] + others, predicate=f,
                  Targuments=tuple(types), **_out(w, ds))[0]


def _w_take_while(w, ds):
    return _w_filter(w, ds, "TakeWhileDataset")


def _w_scan(w, ds):
    f, others, types = w.function(ds._fn)
    init = [w.tensor(t, "initial_state") for t in ds._init]
    return w.node("ScanDataset", [w.dataset(ds._input)] + init + others, f=f,
                  Tstate=tuple(t.dtype for t in ds._init), Targuments=tuple(types),
                  preserve_cardinality=True, **_out(w, ds))[0]


def _w_batch(w, ds):
    if ds._groups is not None:
        raise ExportError(f"op '{w.op.name}' (PythonDataset): batching composite elements "
                          "has no saved form here")
    drop = w.body.const(f"{w.op.name}/drop_remainder", ds._drop, D.bool)
    return w.node("BatchDatasetV2", [w.dataset(ds._input), w.int64(ds._size, "batch_size"),
                                     drop], **_out(w, ds))[0]


def _counted(op_type):
    def rule(w, ds):
        return w.node(op_type, [w.dataset(ds._input), w.int64(ds._count, "count")],
                      **_out(w, ds))[0]
    return rule


def _w_shuffle(w, ds):
    seed, seed2 = ds._seeds
    if seed is None:
        seed, seed2 = _NO_SEED, _NO_SEED
    gen, _ = w.node("DummySeedGenerator", [])
    ins = [w.dataset(ds._input), w.int64(ds._buffer, "buffer_size"),
           w.int64(int(seed), "seed"), w.int64(int(seed2), "seed2"), gen]
    return w.node("ShuffleDatasetV3", ins, reshuffle_each_iteration=ds._reshuffle,
                  **_out(w, ds))[0]


def _w_prefetch(w, ds):
    return w.node("PrefetchDataset", [w.dataset(ds._input), w.int64(-1, "buffer_size")],
                  **_out(w, ds))[0]


def _w_passthrough(w, ds):
    return w.dataset(ds._input)  # options, cache-free views: TF's element order is the input's


def _w_unbatch(w, ds):
    return w.node("UnbatchDataset", [w.dataset(ds._input)], **_out(w, ds))[0]


def _w_concatenate(w, ds):
    a, b = ds._inputs
    return w.node("ConcatenateDataset", [w.dataset(a), w.dataset(b)], **_out(w, ds))[0]


def _w_zip(w, ds):
    return w.node("ZipDataset", [w.dataset(d) for d in ds._inputs], N=len(ds._inputs),
                  **_out(w, ds))[0]


def _w_argument(w, ds):
    return w.tensor(ds._placeholder)


_WRITERS = {
    sources._TensorSliceDataset: _w_slices, sources._TensorDataset: _w_tensors,
    sources._RangeDataset: _w_range, mapping._MapDataset: _w_map,
    mapping._ParallelMapDataset: _w_map, mapping._FilterDataset: _w_filter,
    mapping._TakeWhileDataset: _w_take_while, mapping._ScanDataset: _w_scan,
    batching._BatchDataset: _w_batch, batching._UnbatchDataset: _w_unbatch,
    selection._RepeatDataset: _counted("RepeatDataset"),
    selection._TakeDataset: _counted("TakeDataset"),
    selection._SkipDataset: _counted("SkipDataset"),
    selection._ShuffleDataset: _w_shuffle, selection._PrefetchDataset: _w_prefetch,
    selection._OptionsDataset: _w_passthrough, combining._ConcatenateDataset: _w_concatenate,
    combining._ZipDataset: _w_zip, DatasetArgument: _w_argument,
}


def _export_dataset(e, op, *feeds, dataset):
    body = e.body
    if not body.exporter.strict and type(dataset) not in _WRITERS:
        return None  # a lenient GraphDef keeps the Python marker
    return [_Writer(body, op).dataset(dataset)]


def _element_spec_of(op, variant):
    producer = variant.op
    if producer.type != "PythonDataset":
        raise ExportError(f"op '{op.name}' ({op.type}): an iterator over a dataset not made in "
                          "this function has no saved form here")
    return producer.attrs["dataset"].element_spec


def _export_iterator(e, op, variant):
    """Our iterator op: TF's AnonymousIteratorV3 made to iterate the dataset by MakeIterator;
    readers take the handle through an Identity waiting on MakeIterator (as TF's readers
    wait on it)."""
    body = e.body
    attrs = _spec_attrs(_element_spec_of(op, variant), f"op '{op.name}' ({op.type})")
    w = _Writer.__new__(_Writer)
    w.body, w.op = body, op
    handle, _ = w.node("AnonymousIteratorV3", [], **attrs)
    _, make = w.node("MakeIterator", [body.ref(variant), handle])
    name = body.fresh(f"{op.name}/Identity")
    ident = body.add_node(name, "Identity", [handle, "^" + make.name],
                          {"T": tf_attrs.encode(D.resource)})
    body.control_outputs.append(make.name)
    return [body.out_ref(ident.name, "Identity", ident.attr, 0)]


tf_composites.register("PythonDataset", _export_dataset)
tf_composites.register("MakeDatasetIterator", _export_iterator)


# --- import: TF's dataset nodes as Python datasets --------------------------------------------
def _datasets(body):
    """The Python dataset of each variant tensor made while importing (per importer)."""
    found = getattr(body.importer, "datasets", None)
    if found is None:
        found = body.importer.datasets = {}
    return found


def _made(body, ds):
    """``ds``'s variant in the graph being imported, remembered as standing for ``ds``."""
    with body.graph.as_default():
        t = ds._variant()
    _datasets(body)[id(t)] = (t, ds)
    return [t], t.op


def _input(body, t, where):
    entry = _datasets(body).get(id(t))
    if entry is None:
        raise GraphImportError(f"{where}: its dataset input is not a dataset this function "
                               "makes (tensortrace imports pipelines built inside the function)")
    return entry[1]


def _pack(values):
    values = list(values)
    return values[0] if len(values) == 1 else tuple(values)


def _static(t, where, what):
    value = getattr(t, "static", None)
    if value is None and t.op.type == "Const":
        value = t.op.attrs["value"]
    if value is None:
        raise GraphImportError(f"{where}: {what} must be a constant")
    return value


_calls = itertools.count(1)


def _imported(body, attrs, key, others, where):
    """The FunctionDef ``attrs[key]`` as a Python function of the flat components, inlined into
    the graph that calls it (the dataset function's trace), capturing ``others``."""
    fdef = body.importer.fdef(attrs[key].func.name, where)
    sig = fdef.signature

    def fn(*args):
        graph = state.graph
        flat = nest.flatten(args) + [graph.capture(t) for t in others]
        if len(flat) != len(sig.input_arg):
            raise GraphImportError(f"{where}: {len(flat)} values for the dataset function "
                                   f"{sig.name!r} of {len(sig.input_arg)} arguments")
        inner = function_def._Body(body.importer, graph, function=True,
                                   prefix=f"{sig.name}_{next(_calls)}/")
        inner.build(list(fdef.node_def), {a.name: t for a, t in zip(sig.input_arg, flat)})
        return [inner.resolve(fdef.ret[o.name], f"{where}: return value")
                for o in sig.output_arg]
    return fn


def _types(attrs, key):
    return tuple(tf_attrs.decode(attrs[key])) if key in attrs else ()


def _split(data, attrs, key):
    """The inputs of a list argument ``key`` (a list(type) attr) and the rest."""
    n = len(_types(attrs, key))
    return data[:n], data[n:]


def _i_slices(body, node, data, attrs, where):
    return _made(body, Dataset.from_tensor_slices(_pack(data)))


def _i_tensors(body, node, data, attrs, where):
    return _made(body, Dataset.from_tensors(_pack(data)))


def _i_range(body, node, data, attrs, where):
    dtype = _types(attrs, "output_types")[0]
    with body.graph.as_default():
        return _made(body, Dataset.range(*data, output_type=dtype))


def _with_graph(body, make):
    with body.graph.as_default():
        return _made(body, make())


def _i_map(body, node, data, attrs, where):
    ds = _input(body, data[0], where)
    n = len(_types(attrs, "Targuments"))
    fn = _imported(body, attrs, "f", data[1:1 + n], where)
    return _with_graph(body, lambda: ds.map(lambda *a: _pack(fn(*a))))


def _i_filter(body, node, data, attrs, where, method="filter"):
    ds = _input(body, data[0], where)
    fn = _imported(body, attrs, "predicate", data[1:], where)
    return _with_graph(body, lambda: getattr(ds, method)(lambda *a: fn(*a)[0]))


def _i_take_while(body, node, data, attrs, where):
    return _i_filter(body, node, data, attrs, where, "take_while")


def _stateful_fn(body, attrs, data, where):
    """Scan's and reduce's inputs: the dataset, the initial state and the function of
    (state, element) returning the flat new state and then any outputs."""
    ds = _input(body, data[0], where)
    init, rest = _split(data[1:], attrs, "Tstate")
    fn = _imported(body, attrs, "f", rest, where)
    return ds, init, fn


def _i_scan(body, node, data, attrs, where):
    ds, init, fn = _stateful_fn(body, attrs, data, where)
    n = len(init)

    def step(st, element):
        out = fn(st, element)
        return _pack(out[:n]), _pack(out[n:])
    return _with_graph(body, lambda: ds.scan(_pack(init), step))


def _i_reduce(body, node, data, attrs, where):
    ds, init, fn = _stateful_fn(body, attrs, data, where)
    with body.graph.as_default():
        result = ds.reduce(_pack(init), lambda st, element: _pack(fn(st, element)))
    outputs = nest.flatten(result)
    return outputs, outputs[0].op if outputs else None


def _i_batch(body, node, data, attrs, where):
    ds = _input(body, data[0], where)
    drop = bool(_static(data[2], where, "drop_remainder"))
    return _with_graph(body, lambda: ds.batch(data[1], drop_remainder=drop))


def _counted_import(method):
    def handler(body, node, data, attrs, where):
        ds = _input(body, data[0], where)
        return _with_graph(body, lambda: getattr(ds, method)(data[1]))
    return handler


def _i_shuffle(body, node, data, attrs, where):
    ds = _input(body, data[0], where)
    reshuffle = bool(tf_attrs.decode(attrs["reshuffle_each_iteration"])) \
        if "reshuffle_each_iteration" in attrs else True
    seeds = [int(getattr(t, "static", None) or 0) for t in data[2:4]]

    def make():
        out = ds.shuffle(data[1], reshuffle_each_iteration=reshuffle)
        if any(seeds):
            out._seeds = tuple(seeds)
        return out
    return _with_graph(body, make)


def _i_prefetch(body, node, data, attrs, where):
    return _made(body, _input(body, data[0], where))


def _i_unbatch(body, node, data, attrs, where):
    ds = _input(body, data[0], where)
    return _with_graph(body, ds.unbatch)


def _i_concatenate(body, node, data, attrs, where):
    a, b = (_input(body, t, where) for t in data)
    return _with_graph(body, lambda: a.concatenate(b))


def _i_zip(body, node, data, attrs, where):
    parts = tuple(_input(body, t, where) for t in data)
    return _with_graph(body, lambda: Dataset.zip(parts))


def _i_seed_generator(body, node, data, attrs, where):
    n = len(tf_attrs.signature(node.op).outputs)
    return [_Partial(f"'{node.name}' ({node.op})") for _ in range(n)], None


def _i_single_element(body, node, data, attrs, where):
    ds = _input(body, data[0], where)
    with body.graph.as_default():
        outputs = nest.flatten(ds.get_single_element())
    return outputs, outputs[0].op if outputs else None


def _i_anonymous_iterator(body, node, data, attrs, where):
    # the iterator exists once MakeIterator names its dataset (our one op for both)
    return [_Partial(f"'{node.name}' (AnonymousIteratorV3) before its MakeIterator")], None


def _i_make_iterator(body, node, data, attrs, where):
    ds_t, pending = data
    _input(body, ds_t, where)
    maker = next((name for name, entry in body.nodes.items() if entry[2] and
                  entry[2][0] is pending), None)
    if maker is None or body.nodes[maker][0] != "AnonymousIteratorV3":
        raise GraphImportError(f"{where}: its iterator input is not an AnonymousIteratorV3 of "
                               "this function")
    op = body.add("MakeDatasetIterator", node.name, [ds_t], {})
    entry = body.nodes[maker]
    body.nodes[maker] = (entry[0], entry[1], [op.outputs[0]], op)
    return [], op


function_def._HANDLERS.update({
    "TensorSliceDataset": _i_slices, "TensorDataset": _i_tensors, "RangeDataset": _i_range,
    "MapDataset": _i_map, "ParallelMapDatasetV2": _i_map, "FilterDataset": _i_filter,
    "TakeWhileDataset": _i_take_while, "ScanDataset": _i_scan, "ReduceDataset": _i_reduce,
    "BatchDatasetV2": _i_batch, "RepeatDataset": _counted_import("repeat"),
    "TakeDataset": _counted_import("take"), "SkipDataset": _counted_import("skip"),
    "ShuffleDatasetV3": _i_shuffle, "DummySeedGenerator": _i_seed_generator,
    "AnonymousSeedGenerator": _i_seed_generator, "PrefetchDataset": _i_prefetch,
    "UnbatchDataset": _i_unbatch, "ConcatenateDataset": _i_concatenate, "ZipDataset": _i_zip,
    "DatasetToSingleElement": _i_single_element,
    "AnonymousIteratorV3": _i_anonymous_iterator, "MakeIterator": _i_make_iterator,
})


def saveable(op):
    """Whether a Python op of ``op``'s kind has a TF form (a pipeline: its datasets are then
    checked one by one when the function is written)."""
    return op.type == "PythonDataset"
