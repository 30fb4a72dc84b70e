"""The three models of the Keras-file fixtures, written once for any Keras-API module: real
Keras 3 (tools/record_keras_files.py, tools/check_keras_reads_tapeflow.py) and tapeflow.keras
(tests/keras/test_saving_keras_files.py). The same code on both sides is what makes the files
comparable."""

import numpy as np


def define(keras, package: str = "tapeflow_fixtures"):
    """Registers the custom layer and model under `package` in `keras`; returns `models()`,
    which builds {name: (model, loss, output units)} for sequential, functional, subclassed."""

    @keras.saving.register_keras_serializable(package=package)
    class Scale(keras.layers.Layer):
        """A custom layer: multiplies by a learned vector."""

        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, x):
            return x * self.w * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    @keras.saving.register_keras_serializable(package=package)
    class TwoLayer(keras.Model):
        """A subclassed model: Dense, custom Scale, Dense."""

        def __init__(self, units=5, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.hidden = keras.layers.Dense(units, activation="relu", name="hidden")
            self.scale = Scale(0.5, name="scale")
            self.out = keras.layers.Dense(2, name="out")

        def call(self, x):
            return self.out(self.scale(self.hidden(x)))

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    def models() -> dict:
        # Dropout(0.0): in the layout, without random masks that would make the predictions
        # after a training step differ between the two libraries.
        seq = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="tanh"),
                                keras.layers.BatchNormalization(), keras.layers.Dropout(0.0),
                                keras.layers.Dense(3, activation="softmax")], name="seq")
        inputs = keras.Input((4,), name="x")
        a = keras.layers.Dense(5, activation="relu", name="a")(inputs)
        b = keras.layers.Dense(5, name="b")(inputs)
        c = keras.layers.Concatenate(name="cat")([a, b])
        d = keras.layers.LayerNormalization(name="norm")(c)
        func = keras.Model(inputs, keras.layers.Dense(2, name="y")(d), name="func")
        sub = TwoLayer(name="sub")
        sub(np.zeros((1, 4), "float32"))
        return {"sequential": (seq, "sparse_categorical_crossentropy", 3),
                "functional": (func, "mse", 2), "subclassed": (sub, "mse", 2)}

    return models


def batch(rng, loss: str, units: int) -> tuple:
    """Inputs (8, 4) and targets for a model with `units` outputs and `loss`."""
    x = rng.normal(size=(8, 4)).astype("float32")
    y = (rng.integers(0, units, size=(8,)) if loss.startswith("sparse")
         else rng.normal(size=(8, units))).astype("float32")
    return x, y


def trained(keras, model, loss: str, x, y):
    """Compiles `model` with Adam(0.01), trains two steps on (x, y) (so the optimizer holds
    slots) and returns its predictions on x."""
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss)
    model.train_on_batch(x, y)
    model.train_on_batch(x, y)
    return model.predict(x, verbose=0)


def hdf5_layout(source) -> dict:
    """Every group, dataset (shape, dtype) and attribute of an HDF5 file, by path."""
    import h5py
    entries = {}

    def attrs(obj):
        return {k: (v.decode() if isinstance(v, bytes) else np.asarray(v).tolist())
                for k, v in obj.attrs.items()}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            entries[name] = {"kind": "dataset", "shape": list(obj.shape),
                             "dtype": str(obj.dtype), "attrs": attrs(obj)}
        else:
            entries[name] = {"kind": "group", "attrs": attrs(obj)}

    with h5py.File(source, "r") as f:
        entries["/"] = {"kind": "group", "attrs": attrs(f)}
        f.visititems(visit)
    return entries
