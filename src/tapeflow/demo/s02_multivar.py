import tapeflow as tf
x = tf.Variable(2.0)
y = tf.Variable(3.0)

with tf.GradientTape() as tape:
    z = x ** 2 + y ** 3

dz_dx, dz_dy = tape.gradient(z, [x, y])
print(dz_dx)
print(dz_dy)
