"""keras.io/examples/vision/image_classification_with_vision_transformer, shortened: 16x16
synthetic images in 4x4 patches, 2 transformer layers, 2 epochs."""
import numpy as np
import keras
from keras import layers
from keras import ops

keras.utils.set_random_seed(3)
rng = np.random.default_rng(3)
num_classes = 10
input_shape = (16, 16, 3)
x_train = rng.random((128,) + input_shape).astype("float32")
y_train = rng.integers(0, num_classes, (128, 1))
x_test = rng.random((32,) + input_shape).astype("float32")
y_test = rng.integers(0, num_classes, (32, 1))

learning_rate = 0.001
weight_decay = 0.0001
batch_size = 32
num_epochs = 2
image_size = 16
patch_size = 4
num_patches = (image_size // patch_size) ** 2
projection_dim = 16
num_heads = 2
transformer_units = [projection_dim * 2, projection_dim]
transformer_layers = 2
mlp_head_units = [32, 16]

data_augmentation = keras.Sequential(
    [layers.Normalization(), layers.Resizing(image_size, image_size)],
    name="data_augmentation",
)
data_augmentation.layers[0].adapt(x_train)


def mlp(x, hidden_units, dropout_rate):
    for units in hidden_units:
        x = layers.Dense(units, activation=keras.activations.gelu)(x)
        x = layers.Dropout(dropout_rate)(x)
    return x


class Patches(layers.Layer):
    def __init__(self, patch_size):
        super().__init__()
        self.patch_size = patch_size

    def call(self, images):
        input_shape = ops.shape(images)
        batch_size = input_shape[0]
        height = input_shape[1]
        width = input_shape[2]
        channels = input_shape[3]
        num_patches_h = height // self.patch_size
        num_patches_w = width // self.patch_size
        patches = keras.ops.image.extract_patches(images, size=self.patch_size)
        patches = ops.reshape(
            patches,
            (batch_size, num_patches_h * num_patches_w, self.patch_size * self.patch_size * channels),
        )
        return patches


class PatchEncoder(layers.Layer):
    def __init__(self, num_patches, projection_dim):
        super().__init__()
        self.num_patches = num_patches
        self.projection = layers.Dense(units=projection_dim)
        self.position_embedding = layers.Embedding(input_dim=num_patches, output_dim=projection_dim)

    def call(self, patch):
        positions = ops.expand_dims(ops.arange(start=0, stop=self.num_patches, step=1), axis=0)
        projected_patches = self.projection(patch)
        encoded = projected_patches + self.position_embedding(positions)
        return encoded


patches = Patches(patch_size)(ops.convert_to_tensor(x_train[:1]))
print(f"Patches per image: {patches.shape[1]}")
print(f"Elements per patch: {patches.shape[-1]}")


def create_vit_classifier():
    inputs = keras.Input(shape=input_shape)
    augmented = data_augmentation(inputs)
    patches = Patches(patch_size)(augmented)
    encoded_patches = PatchEncoder(num_patches, projection_dim)(patches)
    for _ in range(transformer_layers):
        x1 = layers.LayerNormalization(epsilon=1e-6)(encoded_patches)
        attention_output = layers.MultiHeadAttention(
            num_heads=num_heads, key_dim=projection_dim, dropout=0.1
        )(x1, x1)
        x2 = layers.Add()([attention_output, encoded_patches])
        x3 = layers.LayerNormalization(epsilon=1e-6)(x2)
        x3 = mlp(x3, hidden_units=transformer_units, dropout_rate=0.1)
        encoded_patches = layers.Add()([x3, x2])
    representation = layers.LayerNormalization(epsilon=1e-6)(encoded_patches)
    representation = layers.Flatten()(representation)
    representation = layers.Dropout(0.5)(representation)
    features = mlp(representation, hidden_units=mlp_head_units, dropout_rate=0.5)
    logits = layers.Dense(num_classes)(features)
    return keras.Model(inputs=inputs, outputs=logits)


model = create_vit_classifier()
print("params:", model.count_params())
optimizer = keras.optimizers.AdamW(learning_rate=learning_rate, weight_decay=weight_decay)
model.compile(
    optimizer=optimizer,
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=[
        keras.metrics.SparseCategoricalAccuracy(name="accuracy"),
        keras.metrics.SparseTopKCategoricalAccuracy(5, name="top-5-accuracy"),
    ],
)
history = model.fit(x=x_train, y=y_train, batch_size=batch_size, epochs=num_epochs,
                    validation_split=0.25, verbose=2)
_, accuracy, top_5_accuracy = model.evaluate(x_test, y_test, verbose=0)
print(f"Test accuracy: {round(accuracy * 100, 2)}%")
print(f"Test top 5 accuracy: {round(top_5_accuracy * 100, 2)}%")
print("final loss:", round(history.history["loss"][-1], 6))
