"""Structured data learning with Wide, Deep, and Cross networks
(keras.io/examples/structured_data/wide_deep_cross_networks).

Shortened: a covertype-shaped synthetic table (numeric features plus integer-coded
categorical ones, seven classes) given to fit as a dict of NumPy columns; the wide & deep
model and the deep & cross model, two epochs each, with the example's encode_inputs.
"""

import numpy as np

import keras
from keras import layers

keras.utils.set_random_seed(17)
rng = np.random.default_rng(17)

NUMERIC_FEATURE_NAMES = ["Elevation", "Aspect", "Slope", "Horizontal_Distance_To_Hydrology"]
CATEGORICAL_FEATURES_WITH_VOCABULARY = {
    "Soil_Type": list(range(1, 9)),
    "Wilderness_Area": list(range(1, 5)),
}
FEATURE_NAMES = NUMERIC_FEATURE_NAMES + list(CATEGORICAL_FEATURES_WITH_VOCABULARY)
NUM_CLASSES = 7

learning_rate = 0.001
dropout_rate = 0.1
batch_size = 32
num_epochs = 2
hidden_units = [16, 16]


def covertype_like(n):
    data = {name: rng.standard_normal(n).astype("float32") for name in NUMERIC_FEATURE_NAMES}
    for name, vocabulary in CATEGORICAL_FEATURES_WITH_VOCABULARY.items():
        data[name] = rng.choice(vocabulary, n).astype("int64")
    score = data["Elevation"] * 2 + data["Soil_Type"] / 4 + rng.normal(0, 0.5, n)
    labels = np.clip(np.round(score + 3), 0, NUM_CLASSES - 1).astype("int64")
    return data, labels


train_data, train_labels = covertype_like(320)
test_data, test_labels = covertype_like(96)
print(f"Train split size: {len(train_labels)}")
print(f"Test split size: {len(test_labels)}")
print("Class counts:", np.bincount(train_labels, minlength=NUM_CLASSES).tolist())


def run_experiment(model):
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate=learning_rate),
        loss=keras.losses.SparseCategoricalCrossentropy(),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
    )

    print("Start training the model...")
    history = model.fit(
        train_data, train_labels, batch_size=batch_size, epochs=num_epochs, verbose=2
    )
    print("Model training finished")

    _, accuracy = model.evaluate(test_data, test_labels, verbose=0)

    print(f"Test accuracy: {round(accuracy * 100, 2)}%")
    return history


def create_model_inputs():
    inputs = {}
    for feature_name in FEATURE_NAMES:
        if feature_name in NUMERIC_FEATURE_NAMES:
            inputs[feature_name] = layers.Input(name=feature_name, shape=(), dtype="float32")
        else:
            inputs[feature_name] = layers.Input(name=feature_name, shape=(), dtype="int64")
    return inputs


def encode_inputs(inputs, use_embedding=False):
    encoded_features = []
    for feature_name in inputs:
        if feature_name in CATEGORICAL_FEATURES_WITH_VOCABULARY:
            vocabulary = CATEGORICAL_FEATURES_WITH_VOCABULARY[feature_name]
            # Create a lookup to convert string values to an integer indices.
            # Since we are not using a mask token nor expecting any out of vocabulary
            # (oov) token, we set mask_token to None and  num_oov_indices to 0.
            lookup = layers.IntegerLookup(
                vocabulary=vocabulary,
                mask_token=None,
                num_oov_indices=0,
                output_mode="int" if use_embedding else "one_hot",
            )
            if use_embedding:
                # Convert the string input values into integer indices.
                encoded_feature = lookup(inputs[feature_name])
                embedding_dims = int(np.sqrt(len(vocabulary)))
                # Create an embedding layer with the specified dimensions.
                embedding = layers.Embedding(
                    input_dim=len(vocabulary), output_dim=embedding_dims
                )
                # Convert the index values to embedding representations.
                encoded_feature = embedding(encoded_feature)
            else:
                # Convert the string input values into a one hot encoding.
                encoded_feature = lookup(keras.ops.expand_dims(inputs[feature_name], -1))
        else:
            # Use the numerical features as-is.
            encoded_feature = keras.ops.expand_dims(inputs[feature_name], -1)

        encoded_features.append(encoded_feature)

    all_features = layers.concatenate(encoded_features)
    return all_features


def create_wide_and_deep_model():
    inputs = create_model_inputs()
    wide = encode_inputs(inputs)
    wide = layers.BatchNormalization()(wide)

    deep = encode_inputs(inputs, use_embedding=True)
    for units in hidden_units:
        deep = layers.Dense(units)(deep)
        deep = layers.BatchNormalization()(deep)
        deep = layers.ReLU()(deep)
        deep = layers.Dropout(dropout_rate)(deep)

    merged = layers.concatenate([wide, deep])
    outputs = layers.Dense(units=NUM_CLASSES, activation="softmax")(merged)
    model = keras.Model(inputs=inputs, outputs=outputs)
    return model


wide_and_deep_model = create_wide_and_deep_model()
print("Wide & deep parameters:", wide_and_deep_model.count_params())
run_experiment(wide_and_deep_model)


def create_deep_and_cross_model():
    inputs = create_model_inputs()
    x0 = encode_inputs(inputs, use_embedding=True)

    cross = x0
    for _ in hidden_units:
        units = cross.shape[-1]
        x = layers.Dense(units)(cross)
        cross = x0 * x + cross
    cross = layers.BatchNormalization()(cross)

    deep = x0
    for units in hidden_units:
        deep = layers.Dense(units)(deep)
        deep = layers.BatchNormalization()(deep)
        deep = layers.ReLU()(deep)
        deep = layers.Dropout(dropout_rate)(deep)

    merged = layers.concatenate([cross, deep])
    outputs = layers.Dense(units=NUM_CLASSES, activation="softmax")(merged)
    model = keras.Model(inputs=inputs, outputs=outputs)
    return model


deep_and_cross_model = create_deep_and_cross_model()
print("Deep & cross parameters:", deep_and_cross_model.count_params())
run_experiment(deep_and_cross_model)
sample = {name: column[:2] for name, column in test_data.items()}
for row in deep_and_cross_model.predict(sample, verbose=0):
    print("Probabilities:", " ".join(f"{p:.5f}" for p in row))
