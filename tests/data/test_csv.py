"""tf.data.experimental.CsvDataset: values, dtypes and errors as TF 2.21 gives them (each
expected value below was printed by TF 2.21 for the same file and arguments)."""

import gzip
import zlib

import numpy as np
import pytest

import tensortrace as tf

C = tf.data.experimental.CsvDataset
_A = b'1,2.5,x,7\n3,,"y,z",8\n,4.5,"q""r",9\n'


def _file(tmp_path, data, name="a.csv"):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _rows(ds):
    return [[v.item() if isinstance(v, np.generic) else v for v in row]
            for row in (tuple(t.numpy() for t in e) for e in ds)]


def _error(ds, cls=tf.errors.InvalidArgumentError):
    with pytest.raises(cls) as info:
        for _ in ds:
            pass
    return info.value.message


def test_values_dtypes_defaults_and_quotes(tmp_path):
    ds = C(_file(tmp_path, _A), [0, 0.0, "d", tf.constant(0, tf.int64)])
    assert [s.dtype for s in ds.element_spec] == [tf.int32, tf.float32, tf.string, tf.int64]
    assert repr(ds).startswith("<CsvDatasetV2 element_spec=(TensorSpec(shape=(), "
                               "dtype=tf.int32, name=None),")
    assert _rows(ds) == [[1, 2.5, b"x", 7], [3, 0.0, b"y,z", 8], [0, 4.5, b'q"r', 9]]
    assert ds.cardinality().numpy() == -2


def test_required_columns_from_dtypes_and_empty_tensors(tmp_path):
    path = _file(tmp_path, _A)
    ds = C(path, [tf.int32, tf.float32, tf.string, tf.int64])
    assert [s.dtype for s in ds.element_spec] == [tf.int32, tf.float32, tf.string, tf.int64]
    assert _error(ds) == "Field 1 is required but missing in record! [Op:IteratorGetNext]"
    # TF tests ``x in (dtypes...)``, which its enum table answers for 1.0 (DT_FLOAT) too
    ds = C(path, [tf.constant([], tf.int32), 1.0, "", 0])
    assert [s.dtype for s in ds.element_spec] == [tf.int32, tf.float32, tf.string, tf.int32]
    assert _error(ds) == "Field 1 is required but missing in record! [Op:IteratorGetNext]"
    assert [C(path, [v, 0, 0, 0]).element_spec[0].dtype for v in (2, 3, 7, 9, True, 0)] == \
        [tf.float64, tf.int32, tf.string, tf.int64, tf.float32, tf.int32]


def test_header_select_exclude_and_na(tmp_path):
    path = _file(tmp_path, _A)
    header = _file(tmp_path, b"c1,c2\n1,2.5\n3,\n", "h.csv")
    assert _rows(C(header, [0, 0.0], header=True)) == [[1, 2.5], [3, 0.0]]
    assert _rows(C(path, [0, "d"], select_cols=[0, 2])) == [[1, b"x"], [3, b"y,z"], [0, b'q"r']]
    assert _rows(C(path, [0.0, 0], exclude_cols=[0, 2])) == [[2.5, 7], [0.0, 8], [4.5, 9]]
    na = _file(tmp_path, b"1,NA\nNA,2\n", "na.csv")
    assert _rows(C(na, [0, 0], na_value="NA")) == [[1, 0], [0, 2]]
    assert _rows(C(_file(tmp_path, b'"1",2\n', "q.csv"), ["", 0], use_quote_delim=False)) == \
        [[b'"1"', 2]]
    assert _rows(C(_file(tmp_path, b" 1 , 2.5 \n", "s.csv"), [0, 0.0])) == [[1, 2.5]]


def test_records_span_lines_inside_quotes_and_line_ends(tmp_path):
    assert _rows(C(_file(tmp_path, b'1,"a\nb",3\n4,"c",6'), [0, "", 0])) == \
        [[1, b"a\nb", 3], [4, b"c", 6]]
    assert _rows(C(_file(tmp_path, b"1,2\r\n3,4\r5,6", "crlf.csv"), [0, 0])) == \
        [[1, 2], [3, 4], [5, 6]]
    assert _rows(C(_file(tmp_path, b"1,2,\n", "t.csv"), [0, 0, 0])) == [[1, 2, 0]]
    assert _rows(C(_file(tmp_path, b"", "e.csv"), [0])) == []


def test_compressed_files(tmp_path):
    gz = _file(tmp_path, gzip.compress(b"1,2\n3,4\n"), "a.csv.gz")
    zl = _file(tmp_path, zlib.compress(b"5,6\n7,8\n"), "a.csv.z")
    assert _rows(C(gz, [0, 0], compression_type="GZIP")) == [[1, 2], [3, 4]]
    assert _rows(C([zl, zl], [0, 0], compression_type="ZLIB")) == [[5, 6], [7, 8]] * 2


@pytest.mark.parametrize("data, defaults, kwargs, message", [
    (b"1,2\n3\n", [0, 0], {}, "Expect 2 fields but have 1 in record"),
    (b"1,2\n\n3,4\n", [0, 0], {}, "Expect 2 fields but have 1 in record"),
    (b"1,2,3,4\n", [0], {}, "Expect 1 fields but have more in record"),
    (b"1,2,3,4,5\n", [0, 0], {"exclude_cols": [1, 3]}, "Expect 2 fields but have more in record"),
    (b"1,2,3,4\n5,6,7\n", [0, 0], {"select_cols": [0, 3]}, "Expect 2 fields but have 1 in record"),
    (b"1,x\n", [0, 0], {}, "Field 1 in record is not a valid int32: x"),
    (b"99999999999,1\n", [0, 0], {}, "Field 0 in record is not a valid int32: 99999999999"),
    (b"1.0,2\n", [0, 0], {}, "Field 0 in record is not a valid int32: 1.0"),
    (b'1,a"b\n', [0, ""], {}, "Unquoted fields cannot have quotes inside"),
    (b'1,"abc\n', [0, ""], {}, "Reached end of file without closing quoted field in record"),
    (b'1,"ab"c\n', [0, ""], {}, "Reached end of file without closing quoted field in record"),
])
def test_record_errors(tmp_path, data, defaults, kwargs, message):
    ds = C(_file(tmp_path, data), defaults, **kwargs)
    assert _error(ds) == message + " [Op:IteratorGetNext]"


def test_missing_file(tmp_path):
    ds = C(str(tmp_path / "nope.csv"), [0])
    assert _error(ds, tf.errors.NotFoundError).endswith(
        "nope.csv; No such file or directory [Op:IteratorGetNext]")


@pytest.mark.parametrize("defaults, kwargs, message", [
    ([0, 0], {"field_delim": "ab"}, "field_delim should be only 1 char"),
    ([0], {"select_cols": [-1]}, "select_cols should be non-negative indices"),
    ([0, 0], {"select_cols": [1, 0]}, "select_cols should be strictly increasing indices"),
    ([0, 0], {"select_cols": [1]}, "select_cols should match output size"),
    ([0], {"select_cols": [1], "exclude_cols": [0]},
     "Either select_cols or exclude_cols should be empty"),
    ([0, 0], {"exclude_cols": [-1]}, "exclude_cols should be non-negative indices"),
    ([0, 0], {"exclude_cols": [3, 1]}, "exclude_cols should be strictly increasing indices"),
    ([tf.constant([1, 2])], {}, "There should only be 1 default per field but field 0 has 2"),
    ([0], {"compression_type": "BZ"}, "Unsupported compression_type: BZ."),
    ([0], {"buffer_size": 0}, "buffer_size should be positive"),
])
def test_argument_errors(tmp_path, defaults, kwargs, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        C(_file(tmp_path, b"1\n"), defaults, **kwargs)
    assert info.value.message == message + " [Op:CSVDatasetV2]"


def test_type_errors(tmp_path):
    path = _file(tmp_path, b"1\n")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        C(path, [tf.constant(True)])
    assert info.value.message.startswith(
        "Value for attr 'output_types' of bool is not in the list of allowed values: float, "
        "double, int32, int64, string\n\t; NodeDef: {{node CSVDatasetV2}}; Op<name=CSVDatasetV2;")
    with pytest.raises(ValueError, match=r"Attempt to convert a value \(tf.bool\)"):
        C(path, [tf.bool])
    with pytest.raises(TypeError, match="Cannot convert 'x' to EagerTensor of dtype bool"):
        C(path, [0], header="x")


def test_inside_a_function_and_the_guide_pipeline(tmp_path):
    path = _file(tmp_path, b"1,2,3,4\n5,,7,8\n")
    ds = C(path, [999] * 4).map(lambda *items: tf.stack(items))
    assert repr(ds) == "<_MapDataset element_spec=TensorSpec(shape=(4,), dtype=tf.int32, " \
                       "name=None)>"
    assert [e.tolist() for e in ds.as_numpy_iterator()] == [[1, 2, 3, 4], [5, 999, 7, 8]]

    @tf.function
    def total(name):
        s = tf.constant(0)
        for a, b in C(name, [0, 0], select_cols=[0, 3]):
            s += a * b
        return s
    assert total(tf.constant(path)).numpy() == 1 * 4 + 5 * 8


_PEOPLE = b'name,age,score,label\nann,31,1.5,1\nbob,,2.25,0\n"c,d",45,3,1\neve,22,4e3,0\n'


def _people(tmp_path):
    _file(tmp_path, _PEOPLE, "a.csv")
    _file(tmp_path, b"name,age,score,label\nzed,50,-1,1\n", "b.csv")
    return str(tmp_path / "*.csv")


def test_make_csv_dataset_infers_names_and_types(tmp_path):
    make = tf.data.experimental.make_csv_dataset
    ds = make(_people(tmp_path), batch_size=2, label_name="label", shuffle=False, num_epochs=1)
    assert repr(ds) == (  # TF 2.21's text
        "<_PrefetchDataset element_spec=(OrderedDict([('name', TensorSpec(shape=(None,), "
        "dtype=tf.string, name=None)), ('age', TensorSpec(shape=(None,), dtype=tf.int32, "
        "name=None)), ('score', TensorSpec(shape=(None,), dtype=tf.float32, name=None))]), "
        "TensorSpec(shape=(None,), dtype=tf.int32, name=None))>")
    got = [({k: v.numpy().tolist() for k, v in f.items()}, lab.numpy().tolist()) for f, lab in ds]
    assert got == [({"name": [b"ann", b"bob"], "age": [31, 0], "score": [1.5, 2.25]}, [1, 0]),
                   ({"name": [b"c,d", b"eve"], "age": [45, 22], "score": [3.0, 4000.0]}, [1, 0]),
                   ({"name": [b"zed"], "age": [50], "score": [-1.0]}, [1])]
    ds = make(str(tmp_path / "a.csv"), batch_size=3, select_columns=["age", "name"],
              shuffle=False, num_epochs=1)
    assert [list(f) for f in ds] == [["name", "age"]] * 2
    ds = make(str(tmp_path / "a.csv"), batch_size=3, shuffle_seed=1)  # repeated: full batches
    assert [s.shape for s in ds.element_spec.values()] == [tf.TensorShape([3])] * 4
    assert sorted(next(iter(ds))["age"].numpy().tolist()) in ([0, 22, 31], [0, 22, 45],
                                                             [0, 31, 45], [22, 31, 45])


@pytest.mark.parametrize("kwargs, message", [
    ({"file_pattern": "none*.csv"}, "No files match `file_pattern` {dir}/none*.csv."),
    ({"label_name": "x"}, "`label_name` provided must be one of the columns: ['name', 'age', "
                          "'score', 'label']. Received: x."),
    ({"select_columns": ["age", "age"]},
     "The `select_columns` argument contains duplicate columns: set()."),
    ({"header": False}, "Expected `column_names` or `header` arguments. Neither is provided."),
    ({"column_names": ["a", "a", "b", "c"]},
     "Either `column_names` argument or CSV header row contains duplicate column names: {'a'}."),
    ({"select_columns": [9]}, "Column index 9 specified in `select_columns` should be > 0  and "
                              "<= 4, which is the number of columns."),
])
def test_make_csv_dataset_errors(tmp_path, kwargs, message):
    _file(tmp_path, _PEOPLE, "a.csv")
    pattern = str(tmp_path / kwargs.pop("file_pattern", "a.csv"))
    with pytest.raises(ValueError) as info:
        tf.data.experimental.make_csv_dataset(pattern, 1, **kwargs)
    assert str(info.value) == message.replace("{dir}", str(tmp_path))


def test_make_csv_dataset_ignore_errors(tmp_path):
    path = _file(tmp_path, b"a,b\n1,2\n3,x\n5,6\n")
    ds = tf.data.experimental.make_csv_dataset(path, 5, column_defaults=[0, 0], shuffle=False,
                                               num_epochs=1, ignore_errors=True)
    assert [e["a"].numpy().tolist() for e in ds] == [[1, 5]]
