"""TF's checkpoint guide (its non-Keras code, with a tf.Module net and plain SGD) prints what
TF 2.21 printed for the same program (recorded by tests/fixtures/tf/make_checkpoints.py)."""

import os

import pytest

import tensortrace as tf

from ._fixtures import EXPECTED


class Dense(tf.Module):
    def __init__(self, n):
        super().__init__()
        self.kernel = tf.Variable(tf.fill([1, n], 0.5))
        self.bias = tf.Variable(tf.zeros([n]))

    def __call__(self, x):
        return x @ self.kernel + self.bias


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.l1 = Dense(5)

    def __call__(self, x):
        return self.l1(x)


def toy_dataset():
    inputs = tf.range(10.)[:, None]
    labels = inputs * 5. + tf.range(5.)[None, :]
    return tf.data.Dataset.from_tensor_slices(dict(x=inputs, y=labels)).repeat().batch(2)


def train_step(net, example):
    with tf.GradientTape() as tape:
        output = net(example['x'])
        loss = tf.reduce_mean(tf.abs(output - example['y']))
    variables = net.trainable_variables
    gradients = tape.gradient(loss, variables)
    for v, g in zip(variables, gradients):
        v.assign_sub(0.1 * g)
    return loss


def test_guide(tmp_path, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)
    lines = []
    say = lines.append

    def run():
        net = Net()
        iterator = iter(toy_dataset())
        ckpt = tf.train.Checkpoint(step=tf.Variable(1), net=net)
        manager = tf.train.CheckpointManager(ckpt, './tf_ckpts', max_to_keep=3)
        ckpt.restore(manager.latest_checkpoint)
        if manager.latest_checkpoint:
            say("Restored from {}".format(manager.latest_checkpoint))
        else:
            say("Initializing from scratch.")
        for _ in range(50):
            example = next(iterator)
            loss = train_step(net, example)
            ckpt.step.assign_add(1)
            if int(ckpt.step) % 10 == 0:
                save_path = manager.save()
                say("Saved checkpoint for step {}: {}".format(int(ckpt.step), save_path))
                say("loss {:1.2f}".format(loss.numpy()))
        return manager

    run()
    manager = run()
    say(str(manager.checkpoints))
    say(str(sorted(os.listdir('./tf_ckpts'))))

    to_restore = tf.Variable(tf.zeros([5]))
    say(str(to_restore.numpy()))
    fake_layer = tf.train.Checkpoint(bias=to_restore)
    fake_net = tf.train.Checkpoint(l1=fake_layer)
    new_root = tf.train.Checkpoint(net=fake_net)
    status = new_root.restore(tf.train.latest_checkpoint('./tf_ckpts/'))
    say(str(to_restore.numpy()))
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError) as e:
        status.assert_consumed()
    assert [type(e.value).__name__, str(e.value)] == EXPECTED["guide"]["assert_consumed"]
    delayed_restore = tf.Variable(tf.zeros([1, 5]))
    say(str(delayed_restore.numpy()))
    fake_layer.kernel = delayed_restore  # deferred restoration: restored on attachment
    say(str(delayed_restore.numpy()))
    say(str(tf.train.list_variables(tf.train.latest_checkpoint('./tf_ckpts/'))))

    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.)]
    save.listed.append(tf.Variable(2.))
    save.mapped = {'one': save.listed[0]}
    save.mapped['two'] = save.listed[1]
    save_path = save.save('./tf_list_example')
    say(save_path)
    restore = tf.train.Checkpoint()
    v2 = tf.Variable(0.)
    restore.mapped = {'two': v2}
    restore.restore(save_path)
    say(str(v2.numpy()))
    restore.listed = []
    say(str(restore.listed))
    v1 = tf.Variable(0.)
    restore.listed.append(v1)  # restored as it is added
    say(str(v1.numpy()))
    assert lines == EXPECTED["guide"]["lines"]
