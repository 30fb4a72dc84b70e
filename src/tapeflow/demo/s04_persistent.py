import tapeflow as tf
x = tf.Variable(3.0)
y = tf.Variable(4.0)

with tf.GradientTape(persistent=True) as tape:
    z = x ** 2 + y ** 2

dz_dx = tape.gradient(z, x)
dz_dy = tape.gradient(z, y)

print(dz_dx)
print(dz_dy)

del tape
