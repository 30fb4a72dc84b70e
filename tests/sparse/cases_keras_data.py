# ruff: noqa: E501 - each snippet on one line, as recorded
"""SparseTensors through Keras and tf.data: snippets run under TensorFlow 2.21 / Keras 3
(tools/record_sparse_keras_data_fixtures.py records what they print into
fixtures/keras_data_tf221.json) and under tapeflow (test_sparse_keras_data.py compares).
KerasTensor names are cut from their repr (Keras numbers them `keras_tensor_N`)."""

SETUP = """
sp = tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)], values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))
ds = tf.data.Dataset.from_tensor_slices(sp)
def show(e):
    print(e.indices.numpy().tolist(), e.values.numpy().tolist(), e.dense_shape.numpy().tolist())
def ser(vals):
    return tf.train.Example(features=tf.train.Features(feature={"v": tf.train.Feature(int64_list=tf.train.Int64List(value=vals))})).SerializeToString()
"""

CASES = {
    # -- Keras ------------------------------------------------------------------------------
    "keras_input": "x = tf.keras.Input(shape=(4,), sparse=True); print(x.sparse, x.shape, x.dtype); print(repr(x).split(', name=')[0]); y = tf.keras.layers.Dense(4)(x); print(y.sparse, y.shape, y.dtype)",
    "keras_input_dense_repr": "print(repr(tf.keras.Input(shape=(3,))).split(', name=')[0])",
    "keras_model_call_predict": "tf.keras.utils.set_random_seed(0); x = tf.keras.Input(shape=(4,), sparse=True); model = tf.keras.Model(x, tf.keras.layers.Dense(4)(x)); print(model(sp)); print(repr(model.predict(sp, verbose=0)))",
    "keras_predict_batches": "tf.keras.utils.set_random_seed(1); x = tf.keras.Input(shape=(4,), sparse=True); model = tf.keras.Model(x, tf.keras.layers.Dense(2, activation='relu')(x)); print(repr(model.predict(sp, batch_size=4, verbose=0)))",
    "keras_dense_input_densifies": "tf.keras.utils.set_random_seed(0); x = tf.keras.Input(shape=(4,)); model = tf.keras.Model(x, tf.keras.layers.Dense(3)(x)); print(model(sp)); print(model(tf.cast(tf.sparse.to_dense(sp), tf.float32)))",
    "keras_dense_dtypes": "tf.keras.utils.set_random_seed(0); d = tf.keras.layers.Dense(2); print(d(sp).dtype); print(d(tf.sparse.SparseTensor([[0, 1], [1, 0]], tf.constant([1., 2.], tf.float64), [2, 4])).dtype); print(d(tf.sparse.SparseTensor([[1, 0], [0, 1], [0, 3]], [1., 2., 3.], [3, 4])))",
    "keras_kernel_gradient": "tf.keras.utils.set_random_seed(0); d = tf.keras.layers.Dense(4); s = tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (2, 2)], values=[1., 2., 3.], dense_shape=(3, 4))\nwith tf.GradientTape() as t:\n    out = d(s); loss = tf.reduce_sum(out * out)\ng = t.gradient(loss, d.trainable_variables); print(type(g[0]).__name__, g[0].indices, g[0].values, g[0].dense_shape); print(tf.convert_to_tensor(g[0])); print(g[1])",
    "keras_fit": "tf.keras.utils.set_random_seed(0); x = tf.keras.Input(shape=(4,), sparse=True); d = tf.keras.layers.Dense(4); model = tf.keras.Model(x, d(x)); model.compile(optimizer='sgd', loss='mse'); h = model.fit(sp, tf.ones((6, 4)), verbose=0, epochs=2, batch_size=2); print([round(v, 5) for v in h.history['loss']]); print(d.kernel.numpy())",
    "keras_fit_adam": "tf.keras.utils.set_random_seed(0); x = tf.keras.Input(shape=(4,), sparse=True); d = tf.keras.layers.Dense(2); model = tf.keras.Model(x, d(x)); model.compile(optimizer='adam', loss='mse'); h = model.fit(sp, tf.ones((6, 2)), verbose=0, epochs=2, batch_size=3, shuffle=False); print([round(v, 5) for v in h.history['loss']]); print(d.kernel.numpy())",
    # -- tf.data ----------------------------------------------------------------------------
    "data_slices": "print(ds.element_spec); print(ds)\nfor e in ds: show(e)",
    "data_batch": "b = ds.batch(2); print(b.element_spec); print(ds.batch(4, drop_remainder=True).element_spec)\nfor e in ds.batch(4): show(e)",
    "data_unbatch": "u = ds.batch(4).unbatch(); print(u.element_spec)\nfor e in u: show(e)",
    "data_unbatch_rank1": "print(list(ds.unbatch()))",
    "data_map": "m = ds.map(lambda x: x * 2); print(m.element_spec)\nfor e in m: show(e)",
    "data_map_to_dense": "m = ds.map(lambda x: tf.sparse.to_dense(x)); print(m.element_spec); print(list(m.as_numpy_iterator())[0])",
    "data_map_tuple": "m = ds.map(lambda x: (x, tf.sparse.reduce_sum(x))); print(m.element_spec)\nfor e, s in m.take(2): show(e); print(s)",
    "data_map_new_values": "m = ds.map(lambda x: tf.sparse.SparseTensor(x.indices, tf.cast(x.values, tf.float32) * 0.5, x.dense_shape))\nfor e in m: show(e)",
    "data_filter": "f = ds.filter(lambda x: tf.sparse.reduce_sum(x) > 0); print(f.element_spec)\nfor e in f: show(e)",
    "data_padded_batch": "ds.padded_batch(2)",
    "data_shuffle_prefetch_cache": "tf.random.set_seed(5)\nfor d in (ds.shuffle(10, seed=1), ds.prefetch(2), ds.cache(), ds.take(2), ds.repeat(2).take(7)):\n    print(d.element_spec, [e.indices.numpy().tolist() for e in d])",
    "data_tuple_zip_enumerate": "d2 = tf.data.Dataset.from_tensor_slices((sp, tf.range(6))); print(d2.element_spec); print(tf.data.Dataset.zip((ds, ds)).element_spec); print(ds.enumerate().element_spec)\nfor e, i in d2.batch(4): show(e); print(i)",
    "data_from_tensors": "ft = tf.data.Dataset.from_tensors(sp); print(ft.element_spec)\nfor e in ft: show(e)\nfor e in ft.unbatch().batch(5): show(e)",
    "data_rank3": "sp3 = tf.sparse.SparseTensor([[0, 1, 2], [1, 0, 0]], [1., 2.], [2, 3, 4]); d3 = tf.data.Dataset.from_tensor_slices(sp3); print(d3.element_spec)\nfor e in d3: show(e)",
    "data_as_numpy": "print(repr(next(iter(ds.batch(2).as_numpy_iterator()))))",
    "data_rebatch": "r = ds.batch(2).rebatch(3); print(r.element_spec)\nfor e in r: show(e)",
    "data_varlen_parse": "recs = tf.data.Dataset.from_tensor_slices([ser([1, 2, 3]), ser([]), ser([7])]); p = recs.map(lambda s: tf.io.parse_single_example(s, {'v': tf.io.VarLenFeature(tf.int64)})); print(p.element_spec)\nfor e in p: show(e['v'])\nprint(p.batch(2).element_spec)\nfor e in p.batch(2): show(e['v'])",
    "data_varlen_parse_batched": "recs = tf.data.Dataset.from_tensor_slices([ser([1, 2, 3]), ser([]), ser([7])]); pb = recs.batch(2).map(lambda s: tf.io.parse_example(s, {'v': tf.io.VarLenFeature(tf.int64)})); print(pb.element_spec)\nfor e in pb: show(e['v'])",
}
