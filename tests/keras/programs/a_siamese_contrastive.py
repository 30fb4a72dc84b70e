"""keras.io/examples/vision/siamese_contrastive, shortened: pairs of 28x28 synthetic images,
a shared tower, the euclidean distance in a Lambda layer, a contrastive loss, 2 epochs."""
import random

import numpy as np
import keras
from keras import ops

keras.utils.set_random_seed(5)
rng = np.random.default_rng(5)
epochs = 2
batch_size = 16
margin = 1

x_train_val = rng.random((160, 28, 28)).astype("float32")
y_train_val = rng.integers(0, 10, 160)
x_train, x_val = x_train_val[:120], x_train_val[120:]
y_train, y_val = y_train_val[:120], y_train_val[120:]


def make_pairs(x, y):
    num_classes = max(y) + 1
    digit_indices = [np.where(y == i)[0] for i in range(num_classes)]
    pairs = []
    labels = []
    for idx1 in range(len(x)):
        x1 = x[idx1]
        label1 = y[idx1]
        idx2 = random.choice(digit_indices[label1])
        x2 = x[idx2]
        pairs += [[x1, x2]]
        labels += [0]
        label2 = random.randint(0, num_classes - 1)
        while label2 == label1:
            label2 = random.randint(0, num_classes - 1)
        idx2 = random.choice(digit_indices[label2])
        x2 = x[idx2]
        pairs += [[x1, x2]]
        labels += [1]
    return np.array(pairs), np.array(labels).astype("float32")


pairs_train, labels_train = make_pairs(x_train, y_train)
pairs_val, labels_val = make_pairs(x_val, y_val)
print("pairs:", pairs_train.shape, "labels mean:", labels_train.mean())
x_train_1 = pairs_train[:, 0]
x_train_2 = pairs_train[:, 1]
x_val_1 = pairs_val[:, 0]
x_val_2 = pairs_val[:, 1]


def euclidean_distance(vects):
    x, y = vects
    sum_square = ops.sum(ops.square(x - y), axis=1, keepdims=True)
    return ops.sqrt(ops.maximum(sum_square, keras.backend.epsilon()))


input = keras.layers.Input((28, 28, 1))
x = keras.layers.BatchNormalization()(input)
x = keras.layers.Conv2D(4, (5, 5), activation="tanh")(x)
x = keras.layers.AveragePooling2D(pool_size=(2, 2))(x)
x = keras.layers.Conv2D(8, (5, 5), activation="tanh")(x)
x = keras.layers.AveragePooling2D(pool_size=(2, 2))(x)
x = keras.layers.Flatten()(x)
x = keras.layers.BatchNormalization()(x)
x = keras.layers.Dense(10, activation="tanh")(x)
embedding_network = keras.Model(input, x)

input_1 = keras.layers.Input((28, 28, 1))
input_2 = keras.layers.Input((28, 28, 1))
tower_1 = embedding_network(input_1)
tower_2 = embedding_network(input_2)
merge_layer = keras.layers.Lambda(euclidean_distance, output_shape=(1,))([tower_1, tower_2])
normal_layer = keras.layers.BatchNormalization()(merge_layer)
output_layer = keras.layers.Dense(1, activation="sigmoid")(normal_layer)
siamese = keras.Model(inputs=[input_1, input_2], outputs=output_layer)


def loss(margin=1):
    def contrastive_loss(y_true, y_pred):
        square_pred = ops.square(y_pred)
        margin_square = ops.square(ops.maximum(margin - (y_pred), 0))
        return ops.mean((1 - y_true) * square_pred + (y_true) * margin_square)

    return contrastive_loss


siamese.compile(loss=loss(margin=margin), optimizer="RMSprop", metrics=["accuracy"])
print("params:", siamese.count_params())
history = siamese.fit([x_train_1, x_train_2], labels_train,
                      validation_data=([x_val_1, x_val_2], labels_val),
                      batch_size=batch_size, epochs=epochs, verbose=2)
results = siamese.evaluate([x_val_1, x_val_2], labels_val, verbose=0)
print("test loss, test acc:", [round(r, 6) for r in results])
