"""A stable, readable text form of a graph: one op per line.

    %x: f32[None] = Placeholder()
    %Mul: f32[None] = Mul(%x, %Const)
    return %Mul
"""



def _type(t):
    short = {"float32": "f32", "float64": "f64", "float16": "f16", "int32": "i32",
             "int64": "i64", "bool": "bool", "string": "str"}
    dims = t.shape.dims
    shape = "?" if dims is None else ",".join("None" if d is None else str(d) for d in dims)
    return f"{short.get(t.dtype.name, t.dtype.name)}[{shape}]"


def _attr(v):
    if hasattr(v, "shape") and hasattr(v, "dtype") and getattr(v, "size", 0) > 4:
        return f"<{v.dtype} array {tuple(v.shape)}>"
    text = repr(v)
    return text if len(text) < 60 else text[:57] + "..."


def format_graph(graph, indent=""):
    lines = []
    for op in graph.get_operations():
        outs = ", ".join(f"%{o.name.replace(':0', '')}: {_type(o)}" for o in op.outputs) or "()"
        ins = [f"%{t.name.replace(':0', '')}" for t in op.inputs]
        held = op.subgraphs()
        graph_keys = {k.split("[")[0] for k, _ in held}
        ins += [f"{k}={_attr(v)}" for k, v in op.attrs.items()
                if k not in graph_keys and k not in ("dtype", "shape")]
        lines.append(f"{indent}{outs} = {op.type}({', '.join(ins)})")
        for k, g in held:
            lines.append(f"{indent}  {k}:")
            lines.append(format_graph(g, indent + "    "))
    outs = [f"%{t.name.replace(':0', '')}" for t in graph.outputs if t is not None]
    lines.append(f"{indent}return {', '.join(outs)}")
    return "\n".join(lines)
