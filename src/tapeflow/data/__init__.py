"""`tf.data`: input pipelines (datasets, their transformations and iterators)."""

from tapeflow.data import experimental
from tapeflow.data.dataset_ops import AUTOTUNE, Dataset, DatasetV2
from tapeflow.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tapeflow.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY
from tapeflow.data.dataset_spec import DatasetSpec
from tapeflow.data.iterator_ops import OwnedIterator as Iterator
from tapeflow.data.options import Options
from tapeflow.data.readers import TextLineDatasetV2 as TextLineDataset
from tapeflow.data.readers import TFRecordDatasetV2 as TFRecordDataset

__all__ = ["Dataset", "DatasetV2", "DatasetSpec", "AUTOTUNE", "INFINITE_CARDINALITY",
           "UNKNOWN_CARDINALITY", "Iterator", "Options", "TextLineDataset", "TFRecordDataset",
           "experimental"]
