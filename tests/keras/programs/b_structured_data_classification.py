"""Structured data classification from scratch
(keras.io/examples/structured_data/structured_data_classification_from_scratch, the
preprocessing-layers version).

Shortened: a Cleveland-heart-disease-shaped synthetic table (numeric, integer-coded and
string-coded columns) as a dict of NumPy columns instead of a CSV read by pandas; tf.data
pipelines as the example builds them; Normalization, IntegerLookup and StringLookup adapted
on the training features; two epochs; a prediction for one patient given as a dict.
"""

import numpy as np
import tensorflow as tf

import keras
from keras import layers

keras.utils.set_random_seed(21)
rng = np.random.default_rng(21)


def heart_like(n):
    """Columns as the heart.csv file gives them, and a target that depends on a few."""
    data = {
        "age": rng.integers(29, 78, n),
        "sex": rng.integers(0, 2, n),
        "cp": rng.integers(0, 5, n),
        "trestbps": rng.integers(94, 200, n),
        "chol": rng.integers(126, 565, n),
        "fbs": rng.integers(0, 2, n),
        "restecg": rng.integers(0, 3, n),
        "thalach": rng.integers(71, 203, n),
        "exang": rng.integers(0, 2, n),
        "oldpeak": np.round(rng.uniform(0.0, 6.2, n), 1),
        "slope": rng.integers(1, 4, n),
        "ca": rng.integers(0, 4, n),
        "thal": rng.choice(["normal", "fixed", "reversible"], n),
    }
    score = (data["cp"] >= 3) + (data["thal"] == "reversible") + (data["oldpeak"] > 2.5)
    data["target"] = (score + rng.integers(0, 2, n) >= 2).astype("int64")
    return data


dataframe = heart_like(240)
print("Rows:", len(dataframe["target"]), "columns:", len(dataframe))

val_rows = rng.random(240) < 0.2
val_dataframe = {name: column[val_rows] for name, column in dataframe.items()}
train_dataframe = {name: column[~val_rows] for name, column in dataframe.items()}
print(
    f"Using {len(train_dataframe['target'])} samples for training "
    f"and {len(val_dataframe['target'])} for validation"
)


def dataframe_to_dataset(dataframe):
    dataframe = dict(dataframe)
    labels = dataframe.pop("target")
    ds = tf.data.Dataset.from_tensor_slices((dataframe, labels))
    ds = ds.shuffle(buffer_size=len(labels), seed=21)
    return ds


train_ds = dataframe_to_dataset(train_dataframe)
val_ds = dataframe_to_dataset(val_dataframe)

for x, y in train_ds.take(1):
    print("Input keys:", sorted(x))
    print("Target:", int(y))

train_ds = train_ds.batch(32)
val_ds = val_ds.batch(32)


def encode_numerical_feature(feature, name, dataset):
    # Create a Normalization layer for our feature
    normalizer = layers.Normalization()

    # Prepare a Dataset that only yields our feature
    feature_ds = dataset.map(lambda x, y: x[name])
    feature_ds = feature_ds.map(lambda x: tf.expand_dims(x, -1))

    # Learn the statistics of the data
    normalizer.adapt(feature_ds)

    # Normalize the input feature
    encoded_feature = normalizer(feature)
    return encoded_feature


def encode_categorical_feature(feature, name, dataset, is_string):
    lookup_class = layers.StringLookup if is_string else layers.IntegerLookup
    # Create a lookup layer which will turn strings into integer indices
    lookup = lookup_class(output_mode="one_hot")

    # Prepare a Dataset that only yields our feature
    feature_ds = dataset.map(lambda x, y: x[name])
    feature_ds = feature_ds.map(lambda x: tf.expand_dims(x, -1))

    # Learn the set of possible string values and assign them a fixed integer index
    lookup.adapt(feature_ds)

    # Turn the string input into integer indices
    encoded_feature = lookup(feature)
    return encoded_feature


# Categorical features encoded as integers
sex = keras.Input(shape=(1,), name="sex", dtype="int64")
cp = keras.Input(shape=(1,), name="cp", dtype="int64")
fbs = keras.Input(shape=(1,), name="fbs", dtype="int64")
restecg = keras.Input(shape=(1,), name="restecg", dtype="int64")
exang = keras.Input(shape=(1,), name="exang", dtype="int64")
ca = keras.Input(shape=(1,), name="ca", dtype="int64")

# Categorical feature encoded as string
thal = keras.Input(shape=(1,), name="thal", dtype="string")

# Numerical features
age = keras.Input(shape=(1,), name="age")
trestbps = keras.Input(shape=(1,), name="trestbps")
chol = keras.Input(shape=(1,), name="chol")
thalach = keras.Input(shape=(1,), name="thalach")
oldpeak = keras.Input(shape=(1,), name="oldpeak")
slope = keras.Input(shape=(1,), name="slope")

all_inputs = [sex, cp, fbs, restecg, exang, ca, thal, age, trestbps, chol, thalach, oldpeak,
              slope]

# Integer categorical features
sex_encoded = encode_categorical_feature(sex, "sex", train_ds, False)
cp_encoded = encode_categorical_feature(cp, "cp", train_ds, False)
fbs_encoded = encode_categorical_feature(fbs, "fbs", train_ds, False)
restecg_encoded = encode_categorical_feature(restecg, "restecg", train_ds, False)
exang_encoded = encode_categorical_feature(exang, "exang", train_ds, False)
ca_encoded = encode_categorical_feature(ca, "ca", train_ds, False)

# String categorical features
thal_encoded = encode_categorical_feature(thal, "thal", train_ds, True)

# Numerical features
age_encoded = encode_numerical_feature(age, "age", train_ds)
trestbps_encoded = encode_numerical_feature(trestbps, "trestbps", train_ds)
chol_encoded = encode_numerical_feature(chol, "chol", train_ds)
thalach_encoded = encode_numerical_feature(thalach, "thalach", train_ds)
oldpeak_encoded = encode_numerical_feature(oldpeak, "oldpeak", train_ds)
slope_encoded = encode_numerical_feature(slope, "slope", train_ds)

all_features = layers.concatenate(
    [
        sex_encoded,
        cp_encoded,
        fbs_encoded,
        restecg_encoded,
        exang_encoded,
        slope_encoded,
        ca_encoded,
        thal_encoded,
        age_encoded,
        trestbps_encoded,
        chol_encoded,
        thalach_encoded,
        oldpeak_encoded,
    ]
)
print("Encoded width:", all_features.shape[-1])
x = layers.Dense(32, activation="relu")(all_features)
x = layers.Dropout(0.5)(x)
output = layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(all_inputs, output)
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
print("Parameters:", model.count_params())

model.fit(train_ds, epochs=3, validation_data=val_ds, verbose=2)

sample = {
    "age": 60,
    "sex": 1,
    "cp": 1,
    "trestbps": 145,
    "chol": 233,
    "fbs": 1,
    "restecg": 2,
    "thalach": 150,
    "exang": 0,
    "oldpeak": 2.3,
    "slope": 3,
    "ca": 0,
    "thal": "fixed",
}

input_dict = {name: tf.convert_to_tensor([value]) for name, value in sample.items()}
predictions = model.predict(input_dict, verbose=0)

print(
    f"This particular patient had a {100 * predictions[0][0]:.3f} "
    "percent probability of having a heart disease, as evaluated by our model."
)
