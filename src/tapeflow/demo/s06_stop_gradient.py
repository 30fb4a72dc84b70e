import tapeflow as tf
x = tf.Variable(2.0)

with tf.GradientTape() as tape:
    y = x ** 2
    z = tf.stop_gradient(y) + x

dz_dx = tape.gradient(z, x)
print(dz_dx)
