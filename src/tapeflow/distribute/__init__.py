"""tf.distribute: training across replicas and processes (MPI is the transport between
processes, see tapeflow.distribute.collective)."""
