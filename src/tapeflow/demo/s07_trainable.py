import tapeflow as tf
x = tf.Variable(2.0, trainable=True)
y = tf.Variable(3.0, trainable=False)

with tf.GradientTape() as tape:
    z = x ** 2 + y ** 2

gradients = tape.gradient(z, [x, y])
print(gradients[0])
print(gradients[1])
