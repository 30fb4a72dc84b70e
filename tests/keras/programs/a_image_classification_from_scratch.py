"""keras.io/examples/vision/image_classification_from_scratch, shortened: 32x32 synthetic
cats and dogs, the augmentation layers, a small Xception-like network, 2 epochs."""
import numpy as np
import keras
from keras import layers

keras.utils.set_random_seed(42)
rng = np.random.default_rng(1)
image_size = (32, 32)
x = (rng.random((96,) + image_size + (3,)) * 255).astype("float32")
y = rng.integers(0, 2, 96)

data_augmentation_layers = [
    layers.RandomFlip("horizontal"),
    layers.RandomRotation(0.1),
]


def data_augmentation(images):
    for layer in data_augmentation_layers:
        images = layer(images)
    return images


def make_model(input_shape, num_classes):
    inputs = keras.Input(shape=input_shape)
    x = data_augmentation(inputs)
    x = layers.Rescaling(1.0 / 255)(x)
    x = layers.Conv2D(16, 3, strides=2, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)

    previous_block_activation = x
    for size in [16, 32]:
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
        residual = layers.Conv2D(size, 1, strides=2, padding="same")(previous_block_activation)
        x = layers.add([x, residual])
        previous_block_activation = x

    x = layers.SeparableConv2D(48, 3, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.GlobalAveragePooling2D()(x)
    units = 1 if num_classes == 2 else num_classes
    x = layers.Dropout(0.25)(x)
    outputs = layers.Dense(units, activation=None)(x)
    return keras.Model(inputs, outputs)


model = make_model(input_shape=image_size + (3,), num_classes=2)
print("params:", model.count_params())
model.compile(
    optimizer=keras.optimizers.Adam(3e-4),
    loss=keras.losses.BinaryCrossentropy(from_logits=True),
    metrics=[keras.metrics.BinaryAccuracy(name="acc")],
)
model.fit(x, y, epochs=2, batch_size=32, validation_split=1 / 3, verbose=2)
predictions = model.predict(x[:4], verbose=0)
score = keras.ops.sigmoid(predictions[:, 0])
for s in keras.ops.convert_to_numpy(score):
    print(f"This image is {100 * (1 - s):.2f}% cat and {100 * s:.2f}% dog.")
