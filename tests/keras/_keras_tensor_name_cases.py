"""Graphs whose KerasTensor names Keras 3 numbers (`keras_tensor`, `keras_tensor_1`, ...: one
per tensor made, from `clear_session()` on; a named Input's tensor takes the Input's name),
written once for Keras and tapeflow (`cases(keras)`: name -> function returning the names and
one repr), and what a model's and a layer's symbolic attributes give before they are built or
called. Recorded by tools/record_keras_behaviour.py."""


def _names(tensors):
    return [t.name for t in tensors]


def _sequential_with_input(keras):
    layers = keras.layers
    model = keras.Sequential([keras.Input((4,)), layers.Dense(3), layers.Dense(1)])
    return [_names(model.inputs), _names(model.outputs), repr(model.outputs[0])]


def _sequential_built(keras):
    layers = keras.layers
    model = keras.Sequential([layers.Dense(3), layers.Dense(1)])
    model.build((None, 4))
    return [_names(model.inputs), _names(model.outputs)]


def _two_inputs(keras):
    layers = keras.layers
    a, b = keras.Input((3,)), keras.Input((3,), name="b")
    d = layers.Dense(2)(a)
    c = layers.Concatenate()([a, b])
    model = keras.Model([a, b], [c, d])
    return [_names(model.inputs), _names(model.outputs), repr(a), repr(c)]


def _lstm_states(keras):
    layers = keras.layers
    i = keras.Input((5, 3))
    x, h, c = layers.LSTM(4, return_state=True)(i)
    y = layers.Dense(2)(x)
    model = keras.Model(i, [y, h])
    return [_names(model.inputs), _names(model.outputs), c.name]


def _nested_model(keras):
    layers = keras.layers
    inner_in = keras.Input((3,), name="inner_in")
    inner = keras.Model(inner_in, layers.Dense(2)(inner_in))
    outer_in = keras.Input((3,))
    o = inner(outer_in)
    return [outer_in.name, o.name, layers.Add()([o, o]).name]


def _operators_and_shared_layer(keras):
    a = keras.Input((3,))
    b = a + 1
    c = keras.ops.relu(b)
    dense = keras.layers.Dense(2)
    return [a.name, b.name, c.name, dense(a).name, dense(a).name]


def _attributes_before_and_after_building(keras):
    def read(obj, attr):
        try:
            value = getattr(obj, attr)
        except AttributeError as error:
            return str(error)
        return [t.name for t in value] if attr in ("inputs", "outputs") else \
            getattr(value, "name", None) or list(value)
    built = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)], name="built")
    unbuilt = keras.Sequential([keras.layers.Dense(2)], name="unbuilt")
    dense = keras.layers.Dense(2, name="never_called")
    return [read(built, a) for a in ("input", "output", "inputs", "input_shape",
                                     "output_shape")] + \
        [read(unbuilt, a) for a in ("inputs", "outputs", "input_shape", "input")] + \
        [read(dense, a) for a in ("input", "output")]


CASES = {"sequential_with_input": _sequential_with_input, "sequential_built": _sequential_built,
         "two_inputs": _two_inputs, "lstm_states": _lstm_states, "nested_model": _nested_model,
         "operators_and_shared_layer": _operators_and_shared_layer,
         "attributes_before_and_after_building": _attributes_before_and_after_building}


def record(keras):
    """name -> the case's names, each from a cleared session."""
    seen = {}
    for name, case in CASES.items():
        keras.backend.clear_session()
        seen[name] = case(keras)
    return seen
