"""keras.io/examples/vision/mnist_convnet, shortened: 28x28 synthetic digits, 2 epochs."""
import numpy as np
import keras
from keras import layers

keras.utils.set_random_seed(1337)
rng = np.random.default_rng(0)

num_classes = 10
input_shape = (28, 28, 1)
x_train = rng.random((256, 28, 28)).astype("float32")
y_train = rng.integers(0, num_classes, 256)
x_test = rng.random((64, 28, 28)).astype("float32")
y_test = rng.integers(0, num_classes, 64)
x_train = np.expand_dims(x_train, -1)
x_test = np.expand_dims(x_test, -1)
print("x_train shape:", x_train.shape)
print(x_train.shape[0], "train samples")
y_train = keras.utils.to_categorical(y_train, num_classes)
y_test = keras.utils.to_categorical(y_test, num_classes)

model = keras.Sequential(
    [
        keras.Input(shape=input_shape),
        layers.Conv2D(8, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(num_classes, activation="softmax"),
    ]
)
print("params:", model.count_params())

batch_size = 64
epochs = 2
model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.25,
          verbose=2)
score = model.evaluate(x_test, y_test, verbose=0)
print("Test loss:", round(float(score[0]), 6))
print("Test accuracy:", round(float(score[1]), 6))
