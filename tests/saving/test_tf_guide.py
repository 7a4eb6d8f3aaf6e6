"""The non-Keras cells of TF's SavedModel guide (site/en/guide/saved_model.ipynb): a tf.Module
with tf.functions saved and loaded, signatures, ``loaded.signatures``, output names and
``saved_model_cli show``, printing what TF 2.21 printed for the same cells."""

import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import saved_model_cli


class CustomModule(tf.Module):

    def __init__(self):
        super(CustomModule, self).__init__()  # noqa: UP008 - as the guide writes it
        self.v = tf.Variable(1.)

    @tf.function
    def __call__(self, x):
        print('Tracing with', x)
        return x * self.v

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def mutate(self, new_v):
        self.v.assign(new_v)


class CustomModuleWithOutputName(tf.Module):
    def __init__(self):
        super(CustomModuleWithOutputName, self).__init__()  # noqa: UP008
        self.v = tf.Variable(1.)

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def __call__(self, x):
        return {'custom_output_name': x * self.v}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    tmpdir = str(tmp_path_factory.mktemp("guide"))
    module = CustomModule()
    module(tf.constant(0.))
    paths = {"none": os.path.join(tmpdir, "module_no_signatures"),
             "one": os.path.join(tmpdir, "module_with_signature"),
             "two": os.path.join(tmpdir, "module_with_multiple_signatures")}
    tf.saved_model.save(module, paths["none"])
    call = module.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    tf.saved_model.save(module, paths["one"], signatures=call)
    signatures = {"serving_default": call,
                  "array_input": module.__call__.get_concrete_function(
                      tf.TensorSpec([None], tf.float32))}
    tf.saved_model.save(module, paths["two"], signatures=signatures)
    return paths


def test_custom_module_loads_and_runs(saved):
    imported = tf.saved_model.load(saved["none"])
    assert imported(tf.constant(3.)).numpy() == 3
    imported.mutate(tf.constant(2.))
    assert imported(tf.constant(3.)).numpy() == 6
    assert len(imported.signatures) == 0
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        imported(tf.constant([3.]))  # no Python source: a new input signature fails


def test_files_on_disk(saved):
    path = saved["one"]
    assert sorted(os.listdir(path)) == ["assets", "fingerprint.pb", "saved_model.pb",
                                        "variables"]
    assert sorted(os.listdir(os.path.join(path, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]


def test_signatures(saved):
    assert list(tf.saved_model.load(saved["one"]).signatures.keys()) == ["serving_default"]
    imported = tf.saved_model.load(saved["two"])
    assert list(imported.signatures.keys()) == ["serving_default", "array_input"]
    out = imported.signatures["array_input"](x=tf.constant([1., 2.]))
    assert list(out) == ["output_0"]
    np.testing.assert_array_equal(out["output_0"].numpy(), [1., 2.])


def test_output_names(tmp_path):
    module_output = CustomModuleWithOutputName()
    call_output = module_output.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    path = str(tmp_path / "module_with_output_name")
    tf.saved_model.save(module_output, path, signatures={'serving_default': call_output})
    imported = tf.saved_model.load(path)
    assert repr(imported.signatures['serving_default'].structured_outputs) == (
        "{'custom_output_name': TensorSpec(shape=<unknown>, dtype=tf.float32, "
        "name='custom_output_name')}")


def test_saved_model_cli_cells(saved, capsys):
    saved_model_cli.main(["show", "--dir", saved["two"], "--tag_set", "serve"])
    assert capsys.readouterr().out == (
        "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n"
        'SignatureDef key: "__saved_model_init_op"\nSignatureDef key: "array_input"\n'
        'SignatureDef key: "serving_default"\n')
    saved_model_cli.main(["show", "--dir", saved["two"], "--tag_set", "serve",
                          "--signature_def", "serving_default"])
    assert capsys.readouterr().out == """\
The given SavedModel SignatureDef contains the following input(s):
  inputs['x'] tensor_info:
      dtype: DT_FLOAT
      shape: unknown_rank
      name: serving_default_x:0
The given SavedModel SignatureDef contains the following output(s):
  outputs['output_0'] tensor_info:
      dtype: DT_FLOAT
      shape: unknown_rank
      name: StatefulPartitionedCall_1:0
Method name is: tensorflow/serving/predict
"""
    saved_model_cli.main(["show", "--dir", saved["two"], "--all"])
    text = capsys.readouterr().out
    assert text.endswith("""
Concrete Functions:
  Function Name: '__call__'
    Option #1
      Callable with:
        Argument #1
          x: TensorSpec(shape=<unknown>, dtype=tf.float32, name='x')
    Option #2
      Callable with:
        Argument #1
          x: TensorSpec(shape=(), dtype=tf.float32, name='x')

  Function Name: 'mutate'
    Option #1
      Callable with:
        Argument #1
          new_v: TensorSpec(shape=(), dtype=tf.float32, name='new_v')
""")
    assert """
signature_def['array_input']:
  The given SavedModel SignatureDef contains the following input(s):
    inputs['x'] tensor_info:
        dtype: DT_FLOAT
        shape: unknown_rank
        name: array_input_x:0
  The given SavedModel SignatureDef contains the following output(s):
    outputs['output_0'] tensor_info:
        dtype: DT_FLOAT
        shape: unknown_rank
        name: StatefulPartitionedCall:0
  Method name is: tensorflow/serving/predict
""" in text
