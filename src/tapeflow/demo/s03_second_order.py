import tapeflow as tf
x = tf.Variable(3.0)

with tf.GradientTape() as tape2:
    with tf.GradientTape() as tape1:
        y = x ** 3

    dy_dx = tape1.gradient(y, x)

d2y_dx2 = tape2.gradient(dy_dx, x)
print(d2y_dx2)
