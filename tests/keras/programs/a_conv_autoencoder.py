"""keras.io/examples/vision/autoencoder, shortened: a convolutional denoising autoencoder
on 28x28 synthetic images, 2 epochs each."""
import numpy as np
import keras
from keras import layers

keras.utils.set_random_seed(7)
rng = np.random.default_rng(2)


def preprocess(array):
    array = array.astype("float32")
    return np.reshape(array, (len(array), 28, 28, 1))


def noise(array):
    noise_factor = 0.4
    noisy_array = array + noise_factor * rng.normal(loc=0.0, scale=1.0, size=array.shape)
    return np.clip(noisy_array, 0.0, 1.0).astype("float32")


train_data = preprocess(rng.random((128, 28, 28)))
test_data = preprocess(rng.random((32, 28, 28)))
noisy_train_data = noise(train_data)
noisy_test_data = noise(test_data)

input = layers.Input(shape=(28, 28, 1))
x = layers.Conv2D(8, (3, 3), activation="relu", padding="same")(input)
x = layers.MaxPooling2D((2, 2), padding="same")(x)
x = layers.Conv2D(8, (3, 3), activation="relu", padding="same")(x)
x = layers.MaxPooling2D((2, 2), padding="same")(x)
x = layers.Conv2DTranspose(8, (3, 3), strides=2, activation="relu", padding="same")(x)
x = layers.Conv2DTranspose(8, (3, 3), strides=2, activation="relu", padding="same")(x)
x = layers.Conv2D(1, (3, 3), activation="sigmoid", padding="same")(x)

autoencoder = keras.Model(input, x)
autoencoder.compile(optimizer="adam", loss="binary_crossentropy")
print("params:", autoencoder.count_params())
autoencoder.fit(x=train_data, y=train_data, epochs=2, batch_size=32, shuffle=True,
                validation_data=(test_data, test_data), verbose=2)
autoencoder.fit(x=noisy_train_data, y=train_data, epochs=2, batch_size=32, shuffle=True,
                validation_data=(noisy_test_data, test_data), verbose=2)
predictions = autoencoder.predict(noisy_test_data, verbose=0)
print("prediction mean:", round(float(predictions.mean()), 6))
print("prediction std:", round(float(predictions.std()), 6))
