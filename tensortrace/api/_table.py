"""Where each public name, op type, gradient rule and Tensor operator of tensortrace is
defined, so that it loads on first use. Generated from a full import by
``python -m tensortrace.api.generate``; do not edit (tests/test_import.py checks it is current).
"""

# {namespace: {module: "names"}}: the tf_export'ed names ("" is tf itself; module "" is loaded
# with the package).
EXPORTS = {
    '': {
        'autodiff.custom_gradient': 'custom_gradient',
        'autodiff.gradients': 'gradients hessians recompute_grad',
        'autodiff.tape': 'GradientTape UnconnectedGradients',
        'composite': 'NoneTensorSpec TypeSpec',
        'data.optional': 'OptionalSpec',
        'initializers': ('constant_initializer ones_initializer random_normal_initializer '
                         'random_uniform_initializer zeros_initializer'),
        'module': 'Module',
        'ops.array.broadcasting': 'broadcast_dynamic_shape broadcast_static_shape broadcast_to',
        'ops.array.creation': 'eye fill meshgrid ones ones_like zeros zeros_like',
        'ops.array.joining': 'concat split stack unstack',
        'ops.array.padding': 'pad tile',
        'ops.array.passthrough': 'identity stop_gradient',
        'ops.array.ranges': 'linspace one_hot range',
        'ops.array.reshaping': 'expand_dims reshape squeeze transpose',
        'ops.array.sequences': 'reverse reverse_sequence sequence_mask',
        'ops.array.shapes': 'rank shape shape_n size',
        'ops.control_flow.conditionals': 'case cond switch_case',
        'ops.control_flow.loops': 'while_loop',
        'ops.control_flow.records': 'Assert',
        'ops.core': ('control_dependencies get_current_name_scope group init_scope name_scope '
                     'no_op'),
        'ops.debugging': 'assert_equal assert_greater assert_less assert_rank',
        'ops.functional': 'foldl foldr map_fn scan vectorized_map',
        'ops.indexing.contraction': 'einsum',
        'ops.indexing.gathering': 'boolean_mask gather gather_nd',
        'ops.indexing.scatter': ('scatter_nd tensor_scatter_nd_add tensor_scatter_nd_max '
                                 'tensor_scatter_nd_min tensor_scatter_nd_sub '
                                 'tensor_scatter_nd_update'),
        'ops.indexing.slicing': 'roll slice strided_slice',
        'ops.indexing.sorting': 'argsort searchsorted sort unique unique_with_counts',
        'ops.io': 'numpy_function print py_function',
        'ops.linalg.decompositions': 'eig eigvals qr',
        'ops.linalg.norms': 'norm',
        'ops.linalg.products': 'matmul tensordot',
        'ops.math.arithmetic': ('abs add divide floor maximum minimum multiply negative pow '
                                'realdiv round scalar_mul sign square subtract truediv '
                                'truncatediv truncatemod'),
        'ops.math.casting': 'cast',
        'ops.math.clip': 'add_n clip_by_value saturate_cast',
        'ops.math.compare': ('equal greater greater_equal less less_equal logical_and logical_not '
                             'logical_or not_equal'),
        'ops.math.complex_numbers': 'complex',
        'ops.math.select': 'where',
        'ops.math.special': 'digamma lgamma',
        'ops.math.transcendental': ('acos acosh asin asinh atan atan2 atanh cos cosh exp sigmoid '
                                    'sin sinh sqrt tan tanh'),
        'ops.nn.space_to_batch': 'required_space_to_batch_paddings',
        'ops.reduce': ('argmax argmin cumsum reduce_all reduce_any reduce_logsumexp reduce_max '
                       'reduce_mean reduce_min reduce_prod reduce_sum'),
        'ops.sparse.indexed_slices': 'IndexedSlices IndexedSlicesSpec',
        'ops.strings.hashing': ('fingerprint string_to_hash_bucket string_to_hash_bucket_fast '
                                'string_to_hash_bucket_strong'),
        'ops.strings.numbers': 'as_string',
        'ops.tensor_array.tensor_arrays': 'TensorArray',
        'ops.utility.basic': ('bitcast device ensure_shape get_logger get_static_value is_tensor '
                              'timestamp'),
        'ops.utility.clipping': 'clip_by_global_norm clip_by_norm',
        'ops.utility.counting': ('bincount histogram_fixed_width histogram_fixed_width_bins '
                                 'repeat'),
        'ragged.ragged_tensor': 'RaggedTensor RaggedTensorSpec type_spec_from_value',
        'saving.graph_util': 'import_graph_def',
        'sparse.sparse_tensor': 'SparseTensor SparseTensorSpec',
        'variables': 'VariableAggregation VariableSynchronization',
    },
    'autodiff': {
        'autodiff.forward': 'ForwardAccumulator',
        'autodiff.tape': 'GradientTape',
    },
    'autograph': {
        'autograph.api': 'set_verbosity to_code to_graph trace',
    },
    'autograph.experimental': {
        'autograph.api': 'Feature do_not_convert set_loop_options',
    },
    'bitwise': {
        'ops.math.compare': 'bitwise_and bitwise_or bitwise_xor invert left_shift right_shift',
    },
    'compat': {
        '': 'dimension_at_index dimension_value',
        'api.compat': ('as_bytes as_str as_str_any as_text bytes_or_text_types complex_types '
                       'integral_types path_to_str real_types'),
    },
    'compat.v1': {
        'api.compat_v1': ('placeholder placeholder_with_default reset_default_graph '
                          'sparse_placeholder wrap_function'),
        'summary.protos': 'Event Summary SummaryMetadata',
    },
    'config': {
        'config': ('LogicalDevice LogicalDeviceConfiguration PhysicalDevice '
                   'experimental_functions_run_eagerly experimental_run_functions_eagerly '
                   'functions_run_eagerly get_logical_device_configuration '
                   'get_soft_device_placement list_logical_devices list_physical_devices '
                   'run_functions_eagerly set_logical_device_configuration '
                   'set_soft_device_placement'),
    },
    'config.experimental': {
        'config': ('VirtualDeviceConfiguration enable_op_determinism '
                   'enable_tensor_float_32_execution get_virtual_device_configuration '
                   'list_logical_devices list_physical_devices set_virtual_device_configuration '
                   'tensor_float_32_execution_enabled'),
    },
    'config.optimizer': {
        'config': 'get_jit set_jit',
    },
    'config.threading': {
        'config': ('get_inter_op_parallelism_threads get_intra_op_parallelism_threads '
                   'set_inter_op_parallelism_threads set_intra_op_parallelism_threads'),
    },
    'data': {
        'data': ('AUTOTUNE DatasetSpec INFINITE_CARDINALITY TFRecordDataset TextLineDataset '
                 'UNKNOWN_CARDINALITY experimental'),
        'data.dataset': 'Dataset Options',
        'data.iterator': 'Iterator IteratorSpec',
    },
    'data.experimental': {
        'data': 'cardinality',
        'data.readers': 'CsvDataset make_csv_dataset',
        'lookup.initializers': 'DatasetInitializer',
    },
    'debugging': {
        'ops.control_flow.records': 'Assert',
        'ops.debugging': ('assert_all_finite assert_equal assert_greater assert_greater_equal '
                          'assert_integer assert_less assert_less_equal assert_near '
                          'assert_negative assert_non_negative assert_non_positive '
                          'assert_none_equal assert_positive assert_proper_iterable assert_rank '
                          'assert_rank_at_least assert_rank_in assert_same_float_dtype '
                          'assert_scalar assert_shapes assert_type check_numerics '
                          'disable_check_numerics enable_check_numerics is_numeric_tensor'),
    },
    'distribute': {
        'distribute.cross_device_ops': ('CrossDeviceOps HierarchicalCopyAllReduce NcclAllReduce '
                                        'ReductionToOneDevice'),
        'distribute.mirrored': 'MirroredStrategy OneDeviceStrategy',
        'distribute.multi_worker': 'MultiWorkerMirroredStrategy',
        'distribute.strategy': ('DistributedDataset DistributedIterator DistributedValues '
                                'InputContext ReduceOp ReplicaContext Strategy StrategyExtended '
                                'experimental_set_strategy get_replica_context get_strategy '
                                'has_strategy in_cross_replica_context'),
        'distribute.unprovided': 'ParameterServerStrategy TPUStrategy',
    },
    'distribute.cluster_resolver': {
        'distribute.multi_worker': 'TFConfigClusterResolver',
    },
    'distribute.experimental': {
        'distribute.central_storage': 'CentralStorageStrategy',
        'distribute.multi_worker': 'CommunicationImplementation CommunicationOptions',
        'distribute.strategy': 'ValueContext',
    },
    'dtypes': {
        'ops.math.casting': 'cast',
        'ops.math.clip': 'saturate_cast',
        'ops.math.complex_numbers': 'complex',
    },
    'dtypes.experimental': {
        'ops.math.casting': ('float4_e2m1fn float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz '
                             'float8_e5m2 float8_e5m2fnuz int2 int4 uint2 uint4'),
    },
    'experimental': {
        'data.optional': 'Optional',
        'ops.math.casting': ('float4_e2m1fn float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz '
                             'float8_e5m2 float8_e5m2fnuz int2 int4 uint2 uint4'),
        'ragged.shape': 'DynamicRaggedShape RowPartition',
    },
    'graph_util': {
        'saving.graph_util': 'import_graph_def',
    },
    'image': {
        'ops.image.adjust': ('adjust_brightness adjust_contrast adjust_gamma adjust_hue '
                             'adjust_saturation per_image_standardization random_brightness '
                             'random_contrast random_hue random_saturation '
                             'stateless_random_brightness stateless_random_contrast '
                             'stateless_random_hue stateless_random_saturation'),
        'ops.image.boxes': ('combined_non_max_suppression crop_and_resize draw_bounding_boxes '
                            'non_max_suppression non_max_suppression_overlaps '
                            'non_max_suppression_with_scores'),
        'ops.image.codecs': ('adjust_jpeg_quality decode_and_crop_jpeg decode_bmp decode_gif '
                             'decode_image decode_jpeg decode_png encode_jpeg encode_png '
                             'extract_jpeg_shape is_jpeg'),
        'ops.image.color': ('convert_image_dtype grayscale_to_rgb hsv_to_rgb rgb_to_grayscale '
                            'rgb_to_hsv'),
        'ops.image.geometry': ('central_crop crop_to_bounding_box flip_left_right flip_up_down '
                               'image_gradients pad_to_bounding_box random_flip_left_right '
                               'random_flip_up_down resize_image_with_crop_or_pad '
                               'resize_with_crop_or_pad rot90 stateless_random_flip_left_right '
                               'stateless_random_flip_up_down total_variation transpose'),
        'ops.image.patches': 'extract_patches',
        'ops.image.quality': ('psnr random_crop random_jpeg_quality rgb_to_yiq rgb_to_yuv '
                              'sobel_edges ssim ssim_multiscale stateless_random_crop '
                              'stateless_random_jpeg_quality yiq_to_rgb yuv_to_rgb'),
        'ops.image.resize': 'ResizeMethod resize resize_with_pad',
        'ops.image.sampling': ('sample_distorted_bounding_box '
                               'stateless_sample_distorted_bounding_box'),
    },
    'io': {
        'graph.graph_def': 'write_graph',
        'ops.image.codecs': ('decode_and_crop_jpeg decode_bmp decode_gif decode_image decode_jpeg '
                             'decode_png encode_jpeg encode_png extract_jpeg_shape is_jpeg'),
        'ops.io_bytes': ('decode_base64 decode_csv decode_raw encode_base64 parse_tensor '
                         'serialize_tensor'),
        'ops.io_files': 'read_file write_file',
        'ops.io_records': 'TFRecordOptions TFRecordWriter',
        'parsing.api': ('parse_example parse_sequence_example parse_single_example '
                        'parse_single_sequence_example'),
        'parsing.config': ('FixedLenFeature FixedLenSequenceFeature RaggedFeature SparseFeature '
                           'VarLenFeature'),
    },
    'io.gfile': {
        'ops.io_files': ('GFile copy exists glob isdir join listdir makedirs mkdir remove rename '
                         'rmtree stat walk'),
    },
    'linalg': {
        'ops.array.creation': 'eye',
        'ops.indexing.contraction': 'einsum',
        'ops.linalg.composites': ('cross logdet lstsq matrix_rank matrix_set_diag pinv set_diag '
                                  'triangular_solve'),
        'ops.linalg.decompositions': ('cholesky det eig eigh eigvals eigvalsh inv lu qr slogdet '
                                      'solve svd'),
        'ops.linalg.diagonals': ('adjoint band_part diag diag_part matrix_transpose tensor_diag '
                                 'tensor_diag_part trace'),
        'ops.linalg.norms': 'l2_normalize norm',
        'ops.linalg.products': 'matmul tensordot',
        'ops.utility.clipping': 'global_norm',
        'ops.utility.composites': 'matvec normalize',
    },
    'lookup': {
        'lookup.initializers': 'KeyValueTensorInitializer TextFileIndex TextFileInitializer',
        'lookup.tables': 'StaticHashTable StaticVocabularyTable',
    },
    'lookup.experimental': {
        'lookup.tables': 'DenseHashTable MutableHashTable',
    },
    'math': {
        'ops.array.sequences': 'invert_permutation',
        'ops.debugging': 'confusion_matrix',
        'ops.indexing.segment': ('segment_max segment_mean segment_min segment_prod segment_sum '
                                 'unsorted_segment_max unsorted_segment_min unsorted_segment_prod '
                                 'unsorted_segment_sum'),
        'ops.indexing.sorting': 'top_k',
        'ops.linalg.norms': 'l2_normalize',
        'ops.math.arithmetic': ('abs add ceil divide divide_no_nan floor floordiv floormod '
                                'maximum minimum mod multiply multiply_no_nan negative nextafter '
                                'pow reciprocal reciprocal_no_nan rint round scalar_mul sign '
                                'square squared_difference subtract truediv xdivy xlog1py xlogy'),
        'ops.math.clip': 'add_n',
        'ops.math.compare': ('equal greater greater_equal is_finite is_inf is_nan less less_equal '
                             'logical_and logical_not logical_or logical_xor not_equal'),
        'ops.math.complex_numbers': 'angle conj imag real',
        'ops.math.special': ('bessel_i0 bessel_i0e bessel_i1 bessel_i1e digamma erf erfc erfinv '
                             'lgamma ndtri polygamma zeta'),
        'ops.math.transcendental': ('acos acosh asin asinh atan atan2 atanh cos cosh exp expm1 '
                                    'log log1p log_sigmoid rsqrt sigmoid sin sinh softplus '
                                    'softsign sqrt tan tanh'),
        'ops.nn.softmax': 'log_softmax softmax',
        'ops.reduce': ('argmax argmin count_nonzero cumprod cumsum cumulative_logsumexp '
                       'reduce_all reduce_any reduce_euclidean_norm reduce_logsumexp reduce_max '
                       'reduce_mean reduce_min reduce_prod reduce_std reduce_sum reduce_variance'),
        'ops.utility.composites': ('in_top_k polyval unsorted_segment_mean '
                                   'unsorted_segment_sqrt_n zero_fraction'),
        'ops.utility.counting': 'bincount',
    },
    'math.special': {
        'ops.math.special': 'bessel_i0 bessel_i0e bessel_i1 bessel_i1e',
    },
    'nn': {
        'ops.indexing.sorting': 'top_k',
        'ops.linalg.norms': 'l2_normalize',
        'ops.math.transcendental': 'sigmoid softplus softsign tanh',
        'ops.nn.activations': 'elu gelu leaky_relu relu relu6 selu silu swish',
        'ops.nn.conv_transpose': ('conv1d_transpose conv2d_transpose conv3d_transpose '
                                  'conv_transpose'),
        'ops.nn.convolution': ('atrous_conv2d conv1d conv2d conv3d convolution depthwise_conv2d '
                               'separable_conv2d'),
        'ops.nn.dropout': 'dropout',
        'ops.nn.normalization': ('batch_normalization bias_add l2_loss '
                                 'local_response_normalization lrn moments'),
        'ops.nn.pooling': ('avg_pool avg_pool1d avg_pool2d avg_pool3d max_pool max_pool1d '
                           'max_pool2d max_pool3d pool'),
        'ops.nn.softmax': ('log_softmax sigmoid_cross_entropy_with_logits softmax '
                           'softmax_cross_entropy_with_logits '
                           'sparse_softmax_cross_entropy_with_logits'),
        'ops.utility.clipping': 'embedding_lookup',
        'ops.utility.composites': ('compute_average_loss crelu depth_to_space in_top_k '
                                   'log_poisson_loss scale_regularization_loss space_to_depth '
                                   'weighted_cross_entropy_with_logits zero_fraction'),
        'sparse.ctc': 'ctc_beam_search_decoder ctc_greedy_decoder ctc_loss',
        'sparse.embedding': 'embedding_lookup_sparse safe_embedding_lookup_sparse',
    },
    'nn.experimental': {
        'ops.nn.dropout': 'stateless_dropout',
    },
    'profiler.experimental': {
        'profiler': 'Profile ProfilerOptions Trace start stop',
    },
    'ragged': {
        'ragged.ragged_ops': ('boolean_mask constant map_flat_values range '
                              'row_splits_to_segment_ids segment_ids_to_row_splits stack'),
    },
    'random': {
        'ops.random.gamma': 'stateless_gamma',
        'ops.random.seeds': 'set_seed',
        'ops.random.stateful': ('categorical gamma normal poisson shuffle truncated_normal '
                                'uniform'),
        'ops.random.stateless': ('stateless_categorical stateless_normal '
                                 'stateless_truncated_normal stateless_uniform'),
        'random_generator': ('Algorithm Generator create_rng_state get_global_generator '
                             'set_global_generator'),
    },
    'random.experimental': {
        'random_generator': ('Algorithm Generator create_rng_state get_global_generator '
                             'set_global_generator'),
    },
    'raw_ops': {
        'api.compat_v1': 'PlaceholderWithDefault',
        'ops.image.transform': 'ImageProjectiveTransformV2 ImageProjectiveTransformV3',
        'ops.indexing.buckets': 'Bucketize UniqueV2 UniqueWithCountsV2',
        'saving.tf_resources': ('AssignAddVariableOp AssignVariableOp DestroyResourceOp '
                                'ReadVariableOp VarHandleOp'),
    },
    'saved_model': {
        'saving': ('DEFAULT_SERVING_SIGNATURE_DEF_KEY LoadOptions SERVING SaveOptions '
                   'contains_saved_model load save'),
        'saving.assets': 'Asset',
    },
    'saved_model.experimental': {
        'lookup.resource': 'TrackableResource',
    },
    'sets': {
        'sparse.sets': 'difference intersection size union',
    },
    'signal': {
        'ops.signal.fft': ('fft fft2d fft3d fftshift ifft ifft2d ifft3d ifftshift irfft irfft2d '
                           'irfft3d rfft rfft2d rfft3d'),
        'ops.signal.spectral': ('frame hamming_window hann_window inverse_stft '
                                'inverse_stft_window_fn kaiser_bessel_derived_window '
                                'kaiser_window overlap_and_add stft vorbis_window'),
    },
    'sparse': {
        'sparse.cross': 'cross cross_hashed',
        'sparse.functions': ('add bincount concat expand_dims eye fill_empty_rows from_dense '
                             'map_values mask maximum minimum reduce_max reduce_sum reorder '
                             'reset_shape reshape retain segment_mean segment_sqrt_n segment_sum '
                             'slice softmax sparse_dense_matmul split to_dense to_indicator '
                             'transpose'),
        'sparse.sparse_tensor': 'SparseTensor',
    },
    'strings': {
        'ops.io': 'format',
        'ops.strings.elementwise': 'length lower strip substr upper',
        'ops.strings.hashing': 'to_hash_bucket to_hash_bucket_fast to_hash_bucket_strong',
        'ops.strings.join_split': 'bytes_split join reduce_join split',
        'ops.strings.ngrams': 'unsorted_segment_join',
        'ops.strings.numbers': 'as_string to_number',
        'ops.strings.regex': 'regex_full_match regex_replace',
        'ops.strings.unicode': 'unicode_transcode',
        'ragged.string_ops': ('ngrams unicode_decode unicode_decode_with_offsets unicode_encode '
                              'unicode_script unicode_split unicode_split_with_offsets'),
    },
    'summary': {
        'summary.graphs': 'graph trace_export trace_off trace_on',
        'summary.summaries': 'audio histogram image scalar text write',
        'summary.writer': ('SummaryWriter create_file_writer create_noop_writer flush record_if '
                           'should_record_summaries'),
    },
    'summary.experimental': {
        'summary.summaries': 'summary_scope write_raw_pb',
        'summary.writer': 'get_step set_step',
    },
    'test': {
        'testing': ('TestCase compute_gradient disable_with_predicate gpu_device_name '
                    'is_built_with_cuda is_built_with_gpu_support is_built_with_rocm '
                    'is_built_with_xla is_gpu_available main with_eager_op_as_function'),
    },
    'train': {
        'checkpoint.checkpoint': 'Checkpoint CheckpointOptions',
        'checkpoint.management': ('CheckpointManager checkpoints_iterator get_checkpoint_state '
                                  'latest_checkpoint'),
        'checkpoint.reader': 'list_variables load_checkpoint load_variable',
        'checkpoint.views': 'CheckpointView TrackableView',
        'distribute.multi_worker': 'ClusterSpec',
        'parsing.messages': ('BytesList Example Feature FeatureList FeatureLists Features '
                             'FloatList Int64List SequenceExample'),
    },
    'train.experimental': {
        'checkpoint.graph_view': 'PythonState',
    },
    'types.experimental': {
        'tracing.protocols': ('AtomicFunction Callable ConcreteFunction FunctionType '
                              'GenericFunction PolymorphicFunction SupportsTracingProtocol '
                              'TensorLike TraceType'),
    },
    'types.experimental.distributed': {
        'distribute.values': 'Mirrored PerReplica',
    },
    'version': {
        '_version': 'TENSORTRACE_VERSION VERSION',
    },
}

# {namespace: names}: namespaces that are an engine module of their name, and its
# public names (tf.data is tensortrace.data).
COPIES = {
    'dtypes': ('ALL DType QUANTIZED_DTYPES as_dtype bfloat16 bool complex128 complex64 double '
               'float16 float32 float4_e2m1fn float64 float8_e4m3b11fnuz float8_e4m3fn '
               'float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz from_numpy half int16 int2 int32 int4 '
               'int64 int8 resource string uint16 uint2 uint32 uint4 uint64 uint8 variant'),
    'config': ('LogicalDevice LogicalDeviceConfiguration PhysicalDevice functions_run_eagerly '
               'get_logical_device_configuration get_soft_device_placement list_logical_devices '
               'list_physical_devices run_functions_eagerly set_logical_device_configuration '
               'set_soft_device_placement tf_export'),
    'autograph': 'convert',
    'data': ('AUTOTUNE Dataset DatasetSpec INFINITE_CARDINALITY Iterator NumpyIterator Options '
             'TFRecordDataset TextLineDataset UNKNOWN_CARDINALITY'),
    'summary': '',
    'ragged': '',
    'sparse': ('SparseTensor add bincount concat cross cross_hashed expand_dims eye '
               'fill_empty_rows from_dense map_values mask maximum minimum reduce_max reduce_sum '
               'reorder reset_shape reshape retain segment_mean segment_sqrt_n segment_sum slice '
               'softmax sparse_dense_matmul split to_dense to_indicator transpose'),
    'distribute': ('CentralStorageStrategy ClusterSpec CommunicationImplementation '
                   'CommunicationOptions CrossDeviceOps DistributedDataset DistributedIterator '
                   'DistributedValues HierarchicalCopyAllReduce InputContext MirroredStrategy '
                   'MultiWorkerMirroredStrategy NcclAllReduce OneDeviceStrategy '
                   'ParameterServerStrategy RayWorkers ReduceOp ReductionToOneDevice '
                   'ReplicaContext Strategy StrategyExtended TFConfigClusterResolver TPUStrategy '
                   'ValueContext experimental_set_strategy get_replica_context get_strategy '
                   'has_strategy in_cross_replica_context run_on_ray'),
    'lookup': '',
    'profiler': 'PolymorphicFunction Profile ProfilerOptions Trace bind start stop tf_export',
    'autodiff': '',
}

# The package's modules that are its attributes (tf.ops ...).
ENGINE = ('api checkpoint composite context convert errors executor graph initializers messages '
          'module nest numerics ops parsing passes random_generator registry saved_model_cli '
          'saving shapes shim tensor testing tnp tracing variables xla')

# {module: op types}: where each op is registered.
OPS = {
    'data.ops': ('DatasetCardinality IteratorGetNext IteratorGetNextAsOptional '
                 'MakeDatasetIterator OptionalGetValue OptionalHasValue PythonDataset'),
    'data.optional': 'OptionalFromValue OptionalNone',
    'distribute.multi_worker': 'CollectiveBatchReduce CollectiveGatherV2 CollectiveReduceV2',
    'ops.array.broadcasting': 'BroadcastArgs BroadcastTo SumToShape',
    'ops.array.creation': 'Fill OnesLike ZerosLike',
    'ops.array.joining': 'ConcatV2 Pack Split SplitV Unpack',
    'ops.array.padding': 'MirrorPad Pad PadV2 Tile',
    'ops.array.passthrough': 'Identity PlaceholderWithDefault StopGradient',
    'ops.array.ranges': 'LinSpace OneHot Range',
    'ops.array.reshaping': 'ConjugateTranspose ExpandDims Reshape Squeeze Transpose',
    'ops.array.sequences': 'InvertPermutation ReverseV2',
    'ops.array.shapes': 'Rank Shape ShapeN Size',
    'ops.control_flow.records': 'Assert Case If StatelessCase StatelessIf StatelessWhile While',
    'ops.core': 'Const NoOp Placeholder',
    'ops.debugging': 'CheckNumerics',
    'ops.image.adjust': 'AdjustContrastv2 AdjustHue AdjustSaturation',
    'ops.image.boxes': ('CombinedNonMaxSuppression CropAndResize CropAndResizeGradBoxes '
                        'CropAndResizeGradImage DrawBoundingBoxesV2 NonMaxSuppressionV3 '
                        'NonMaxSuppressionV4 NonMaxSuppressionV5 NonMaxSuppressionWithOverlaps'),
    'ops.image.codecs': ('DecodeAndCropJpeg DecodeBmp DecodeGif DecodeImage DecodeJpeg DecodePng '
                         'EncodeJpeg EncodeJpegVariableQuality EncodePng ExtractJpegShape'),
    'ops.image.color': 'HSVToRGB RGBToHSV',
    'ops.image.patches': 'ExtractImagePatches',
    'ops.image.resize': ('ResizeBicubic ResizeBicubicGrad ResizeBilinear ResizeBilinearGrad '
                         'ResizeNearestNeighbor ResizeNearestNeighborGrad'),
    'ops.image.sampling': 'SampleDistortedBoundingBoxV2 StatelessSampleDistortedBoundingBox',
    'ops.image.scale': 'ResizeArea ScaleAndTranslate ScaleAndTranslateGrad',
    'ops.image.transform': 'ImageProjectiveTransformV2 ImageProjectiveTransformV3',
    'ops.indexing.buckets': 'Bucketize UniqueV2 UniqueWithCountsV2',
    'ops.indexing.contraction': 'Einsum',
    'ops.indexing.gathering': 'GatherNd GatherV2',
    'ops.indexing.scatter': ('ScatterNd TensorScatterAdd TensorScatterMax TensorScatterMin '
                             'TensorScatterSub TensorScatterUpdate'),
    'ops.indexing.segment': ('SegmentMax SegmentMean SegmentMin SegmentProd SegmentSum '
                             'UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd '
                             'UnsortedSegmentSum'),
    'ops.indexing.slicing': 'Roll Slice StridedSlice StridedSliceGrad',
    'ops.indexing.sorting': 'LowerBound TopKV2 Unique UniqueWithCounts UpperBound',
    'ops.internal': 'IndexAxis0',
    'ops.io': 'EagerPyFunc PrintV2 StringFormat',
    'ops.io_bytes': ('DecodeBase64 DecodeCSV DecodePaddedRaw DecodeRaw EncodeBase64 ParseTensor '
                     'SerializeTensor'),
    'ops.io_files': 'ReadFile WriteFile',
    'ops.linalg.decompositions': ('Cholesky Eig LogMatrixDeterminant Lu MatrixDeterminant '
                                  'MatrixInverse MatrixSolve Qr SelfAdjointEigV2 Svd'),
    'ops.linalg.diagonals': ('Diag DiagPart MatrixBandPart MatrixDiagPartV3 MatrixDiagV3 '
                             'MatrixTranspose Trace'),
    'ops.linalg.norms': 'L2Normalize Norm',
    'ops.linalg.products': 'BatchMatMulV2 MatMul Tensordot',
    'ops.lookup.records': ('AnonymousHashTable AnonymousMutableHashTable HashTableV2 '
                           'InitializeTableFromDataset InitializeTableFromTextFileV2 '
                           'InitializeTableV2 LookupTableExportV2 LookupTableFindV2 '
                           'LookupTableImportV2 LookupTableInsertV2 LookupTableRemoveV2 '
                           'LookupTableSizeV2 MutableDenseHashTableV2 MutableHashTableOfTensorsV2 '
                           'MutableHashTableV2'),
    'ops.math.arithmetic': ('Abs Add AddV2 Ceil DivNoNan Floor FloorDiv FloorMod Maximum Minimum '
                            'Mul MulNoNan Neg NextAfter Pow RealDiv Reciprocal Rint Round Sign '
                            'Square SquaredDifference Sub TruncateDiv TruncateMod Xdivy Xlog1py '
                            'Xlogy'),
    'ops.math.casting': 'Cast',
    'ops.math.clip': 'AddN ClipByValue',
    'ops.math.compare': ('BitwiseAnd BitwiseOr BitwiseXor Equal Greater GreaterEqual Invert '
                         'IsFinite IsInf IsNan LeftShift Less LessEqual LogicalAnd LogicalNot '
                         'LogicalOr NotEqual RightShift'),
    'ops.math.complex_numbers': 'Angle Complex ComplexAbs Conj Imag Real',
    'ops.math.select': 'SelectV2 Where',
    'ops.math.special': ('BesselI0 BesselI0e BesselI1 BesselI1e Digamma Erf Erfc Erfinv Lgamma '
                         'Ndtri Polygamma Zeta'),
    'ops.math.transcendental': ('Acos Acosh Asin Asinh Atan Atan2 Atanh Cos Cosh Exp Expm1 Log '
                                'Log1p Rsqrt Sigmoid Sin Sinh Softplus Softsign Sqrt Tan Tanh'),
    'ops.nn.activations': 'Elu Gelu LeakyRelu Relu Relu6 Selu Silu',
    'ops.nn.conv_grad': ('Conv2DBackpropFilter Conv2DBackpropInput Conv3DBackpropFilterV2 '
                         'Conv3DBackpropInputV2 DepthwiseConv2dNativeBackpropFilter '
                         'DepthwiseConv2dNativeBackpropInput'),
    'ops.nn.convolution': 'Conv2D Conv3D DepthwiseConv2dNative',
    'ops.nn.ctc': 'CTCLoss',
    'ops.nn.ctc_decode': 'CTCBeamSearchDecoder CTCGreedyDecoder',
    'ops.nn.dropout': 'Dropout',
    'ops.nn.normalization': 'BatchNormalization BiasAdd FusedBatchNormV3 L2Loss Moments',
    'ops.nn.pool_grad': ('AvgPool3DGrad AvgPoolGrad MaxPool3DGrad MaxPool3DGradGrad MaxPoolGrad '
                         'MaxPoolGradGrad'),
    'ops.nn.pooling': 'AvgPool AvgPool3D MaxPool MaxPool3D',
    'ops.nn.softmax': ('LogSoftmax SigmoidCrossEntropyWithLogits Softmax '
                       'SoftmaxCrossEntropyWithLogits SparseSoftmaxCrossEntropyWithLogits'),
    'ops.random.gamma': 'RandomGammaGrad StatelessRandomGammaV2 StatelessRandomGammaV3',
    'ops.random.stateful': ('Multinomial RandomGamma RandomPoissonV2 RandomShuffle '
                            'RandomStandardNormal RandomUniform RandomUniformInt TruncatedNormal'),
    'ops.random.stateless': ('RngReadAndSkip StatelessMultinomial StatelessRandomGetKeyCounter '
                             'StatelessRandomNormal StatelessRandomNormalV2 '
                             'StatelessRandomUniform StatelessRandomUniformFullInt '
                             'StatelessRandomUniformFullIntV2 StatelessRandomUniformInt '
                             'StatelessRandomUniformIntV2 StatelessRandomUniformV2 '
                             'StatelessTruncatedNormal StatelessTruncatedNormalV2'),
    'ops.reduce': ('All Any ArgMax ArgMin Cumprod Cumsum CumulativeLogsumexp EuclideanNorm Max '
                   'Mean Min Prod Sum'),
    'ops.signal.fft': ('FFT FFT2D FFT3D IFFT IFFT2D IFFT3D IRFFT IRFFT2D IRFFT3D RFFT RFFT2D '
                       'RFFT3D'),
    'ops.sparse.arithmetic': ('DenseCountSparseOutput SparseAdd SparseAddGrad '
                              'SparseCountSparseOutput SparseDenseCwiseAdd SparseDenseCwiseDiv '
                              'SparseDenseCwiseMul SparseReduceMax SparseReduceMaxSparse '
                              'SparseReduceSum SparseReduceSumSparse SparseSoftmax '
                              'SparseSparseMaximum SparseSparseMinimum SparseTensorDenseAdd '
                              'SparseTensorDenseMatMul'),
    'ops.sparse.cross': 'SparseCross SparseCrossV2',
    'ops.sparse.csr': ('CSRSparseMatrixToSparseTensor SparseMatrixSparseMatMul '
                       'SparseTensorToCSRSparseMatrix'),
    'ops.sparse.reorganize': ('SparseConcat SparseFillEmptyRows SparseReorder SparseReshape '
                              'SparseSlice SparseSliceGrad SparseSplit SparseToDense'),
    'ops.sparse.segments': ('SparseSegmentMean SparseSegmentMeanWithNumSegments '
                            'SparseSegmentSqrtN SparseSegmentSqrtNWithNumSegments '
                            'SparseSegmentSum SparseSegmentSumWithNumSegments'),
    'ops.sparse.sets': ('DenseToDenseSetOperation DenseToSparseSetOperation SetSize '
                        'SparseToSparseSetOperation'),
    'ops.state': ('AssignAddVariableOp AssignSubVariableOp AssignVariableOp DestroyResourceOp '
                  'InitializeVariableOnce ReadVariableOp ResourceScatterNdAdd '
                  'ResourceScatterNdMax ResourceScatterNdMin ResourceScatterNdSub '
                  'ResourceScatterNdUpdate VarIsInitializedOp'),
    'ops.strings.elementwise': 'StringLength StringLower StringStrip StringUpper Substr',
    'ops.strings.hashing': ('Fingerprint StringToHashBucket StringToHashBucketFast '
                            'StringToHashBucketStrong'),
    'ops.strings.join_split': 'ReduceJoin StringBytesSplit StringJoin StringSplitV2',
    'ops.strings.ngrams': 'StringNGrams UnsortedSegmentJoin',
    'ops.strings.numbers': 'AsString StringToNumber',
    'ops.strings.regex': 'RegexFullMatch RegexReplace StaticRegexFullMatch StaticRegexReplace',
    'ops.strings.unicode': ('UnicodeDecode UnicodeDecodeWithOffsets UnicodeEncode UnicodeScript '
                            'UnicodeTranscode'),
    'ops.tensor_array.list_ops': ('TensorListConcatV2 TensorListFromTensor TensorListGather '
                                  'TensorListGetItem TensorListLength TensorListReserve '
                                  'TensorListScatterIntoExistingList TensorListSetItem '
                                  'TensorListSplit TensorListStack'),
    'ops.utility.basic': 'Bitcast EnsureShape Timestamp',
    'ops.utility.counting': 'DenseBincount HistogramFixedWidth',
    'parsing.kernels': 'ParseExampleV2 ParseSequenceExampleV2',
    'saving.tf_resources': 'VarHandleOp',
    'summary.ops': ('CloseSummaryWriter EncodeWav FlushSummaryWriter HistogramSummaryBuckets '
                    'WriteGraphSummary WriteRawProtoSummary WriteSummary'),
    'tracing.function_grad': 'PartitionedCall StatefulPartitionedCall',
}

# {module: op types}: where each op's gradient rule is set.
GRADS = {
    'autodiff.rules.array': ('BroadcastArgs BroadcastTo ConcatV2 ConjugateTranspose ExpandDims '
                             'Fill Identity InvertPermutation LinSpace MirrorPad OneHot OnesLike '
                             'Pack Pad PadV2 PlaceholderWithDefault Range Rank Reshape ReverseV2 '
                             'Shape ShapeN Size Split SplitV Squeeze StopGradient SumToShape Tile '
                             'Transpose Unpack ZerosLike'),
    'autodiff.rules.control_flow': ('Assert Case If StatelessCase StatelessIf StatelessWhile '
                                    'While'),
    'autodiff.rules.image': ('AdjustContrastv2 AdjustHue AdjustSaturation '
                             'CombinedNonMaxSuppression CropAndResize CropAndResizeGradBoxes '
                             'CropAndResizeGradImage DecodeAndCropJpeg DecodeBmp DecodeGif '
                             'DecodeImage DecodeJpeg DecodePng DrawBoundingBoxesV2 EncodeJpeg '
                             'EncodeJpegVariableQuality ExtractImagePatches ExtractJpegShape '
                             'HSVToRGB ImageProjectiveTransformV2 ImageProjectiveTransformV3 '
                             'NonMaxSuppressionV3 NonMaxSuppressionV4 NonMaxSuppressionV5 '
                             'NonMaxSuppressionWithOverlaps RGBToHSV ResizeArea ResizeBicubic '
                             'ResizeBicubicGrad ResizeBilinear ResizeBilinearGrad '
                             'ResizeNearestNeighbor ResizeNearestNeighborGrad '
                             'SampleDistortedBoundingBoxV2 ScaleAndTranslate '
                             'ScaleAndTranslateGrad StatelessSampleDistortedBoundingBox'),
    'autodiff.rules.indexing': ('Bucketize Einsum GatherNd GatherV2 LowerBound Roll ScatterNd '
                                'SegmentMax SegmentMean SegmentMin SegmentProd SegmentSum Slice '
                                'StridedSlice StridedSliceGrad TensorScatterAdd TensorScatterMax '
                                'TensorScatterMin TensorScatterSub TensorScatterUpdate TopKV2 '
                                'Unique UniqueV2 UniqueWithCounts UniqueWithCountsV2 '
                                'UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd '
                                'UnsortedSegmentSum UpperBound'),
    'autodiff.rules.linalg': ('BatchMatMulV2 Cholesky Diag DiagPart Eig L2Normalize '
                              'LogMatrixDeterminant Lu MatMul MatrixBandPart MatrixDeterminant '
                              'MatrixDiagPartV3 MatrixDiagV3 MatrixInverse MatrixSolve '
                              'MatrixTranspose Norm Qr SelfAdjointEigV2 Svd Tensordot Trace'),
    'autodiff.rules.math': ('Abs Acos Acosh Add AddN AddV2 Angle Asin Asinh Atan Atan2 Atanh '
                            'BesselI0 BesselI0e BesselI1 BesselI1e BitwiseAnd BitwiseOr '
                            'BitwiseXor Cast Ceil ClipByValue Complex ComplexAbs Conj Cos Cosh '
                            'Digamma DivNoNan Equal Erf Erfc Erfinv Exp Expm1 Floor FloorDiv '
                            'FloorMod Greater GreaterEqual Imag Invert IsFinite IsInf IsNan '
                            'LeftShift Less LessEqual Lgamma Log Log1p LogicalAnd LogicalNot '
                            'LogicalOr Maximum Minimum Mul MulNoNan Ndtri Neg NextAfter NotEqual '
                            'Polygamma Pow Real RealDiv Reciprocal RightShift Rint Round Rsqrt '
                            'SelectV2 Sigmoid Sign Sin Sinh Softplus Softsign Sqrt Square '
                            'SquaredDifference Sub Tan Tanh TruncateDiv TruncateMod Where Xdivy '
                            'Xlog1py Xlogy Zeta'),
    'autodiff.rules.nn': ('AvgPool AvgPool3D AvgPool3DGrad AvgPoolGrad BatchNormalization BiasAdd '
                          'CTCLoss Conv2D Conv2DBackpropFilter Conv2DBackpropInput Conv3D '
                          'Conv3DBackpropFilterV2 Conv3DBackpropInputV2 DepthwiseConv2dNative '
                          'DepthwiseConv2dNativeBackpropFilter DepthwiseConv2dNativeBackpropInput '
                          'Dropout Elu FusedBatchNormV3 Gelu L2Loss LeakyRelu LogSoftmax MaxPool '
                          'MaxPool3D MaxPool3DGrad MaxPool3DGradGrad MaxPoolGrad MaxPoolGradGrad '
                          'Moments Relu Relu6 Selu SigmoidCrossEntropyWithLogits Silu Softmax '
                          'SoftmaxCrossEntropyWithLogits SparseSoftmaxCrossEntropyWithLogits'),
    'autodiff.rules.random': ('RandomGamma RandomGammaGrad StatelessRandomGammaV2 '
                              'StatelessRandomGammaV3'),
    'autodiff.rules.reduce': ('All Any ArgMax ArgMin Cumprod Cumsum CumulativeLogsumexp '
                              'EuclideanNorm Max Mean Min Prod Sum'),
    'autodiff.rules.signal': ('FFT FFT2D FFT3D IFFT IFFT2D IFFT3D IRFFT IRFFT2D IRFFT3D RFFT '
                              'RFFT2D RFFT3D'),
    'autodiff.rules.sparse': ('CSRSparseMatrixToSparseTensor CTCBeamSearchDecoder '
                              'CTCGreedyDecoder DenseCountSparseOutput DenseToDenseSetOperation '
                              'DenseToSparseSetOperation SetSize SparseAdd SparseAddGrad '
                              'SparseConcat SparseCountSparseOutput SparseCross SparseCrossV2 '
                              'SparseDenseCwiseAdd SparseDenseCwiseDiv SparseDenseCwiseMul '
                              'SparseFillEmptyRows SparseMatrixSparseMatMul SparseReduceMax '
                              'SparseReduceMaxSparse SparseReduceSum SparseReduceSumSparse '
                              'SparseReorder SparseReshape SparseSegmentMean '
                              'SparseSegmentMeanWithNumSegments SparseSegmentSqrtN '
                              'SparseSegmentSqrtNWithNumSegments SparseSegmentSum '
                              'SparseSegmentSumWithNumSegments SparseSlice SparseSliceGrad '
                              'SparseSoftmax SparseSparseMaximum SparseSparseMinimum SparseSplit '
                              'SparseTensorDenseAdd SparseTensorDenseMatMul '
                              'SparseTensorToCSRSparseMatrix SparseToDense '
                              'SparseToSparseSetOperation'),
    'autodiff.rules.tensor_array': ('TensorListConcatV2 TensorListFromTensor TensorListGather '
                                    'TensorListGetItem TensorListLength TensorListReserve '
                                    'TensorListScatterIntoExistingList TensorListSetItem '
                                    'TensorListSplit TensorListStack'),
    'autodiff.rules.utility': ('AnonymousHashTable AnonymousMutableHashTable AsString '
                               'AssignAddVariableOp AssignSubVariableOp AssignVariableOp Bitcast '
                               'CheckNumerics Const DecodeBase64 DecodeCSV DecodePaddedRaw '
                               'DecodeRaw DenseBincount DestroyResourceOp EagerPyFunc '
                               'EncodeBase64 EnsureShape Fingerprint HashTableV2 '
                               'HistogramFixedWidth IndexAxis0 InitializeTableFromDataset '
                               'InitializeTableFromTextFileV2 InitializeTableV2 '
                               'InitializeVariableOnce LookupTableExportV2 LookupTableFindV2 '
                               'LookupTableImportV2 LookupTableInsertV2 LookupTableRemoveV2 '
                               'LookupTableSizeV2 Multinomial MutableDenseHashTableV2 '
                               'MutableHashTableOfTensorsV2 MutableHashTableV2 NoOp '
                               'ParseExampleV2 ParseSequenceExampleV2 ParseTensor Placeholder '
                               'PrintV2 RandomPoissonV2 RandomShuffle RandomStandardNormal '
                               'RandomUniform RandomUniformInt ReadFile ReadVariableOp ReduceJoin '
                               'RegexFullMatch RegexReplace ResourceScatterNdAdd '
                               'ResourceScatterNdMax ResourceScatterNdMin ResourceScatterNdSub '
                               'ResourceScatterNdUpdate RngReadAndSkip SerializeTensor '
                               'StatelessMultinomial StatelessRandomGetKeyCounter '
                               'StatelessRandomNormal StatelessRandomNormalV2 '
                               'StatelessRandomUniform StatelessRandomUniformFullInt '
                               'StatelessRandomUniformFullIntV2 StatelessRandomUniformInt '
                               'StatelessRandomUniformIntV2 StatelessRandomUniformV2 '
                               'StatelessTruncatedNormal StatelessTruncatedNormalV2 '
                               'StaticRegexFullMatch StaticRegexReplace StringBytesSplit '
                               'StringFormat StringJoin StringLength StringLower StringNGrams '
                               'StringSplitV2 StringStrip StringToHashBucket '
                               'StringToHashBucketFast StringToHashBucketStrong StringToNumber '
                               'StringUpper Substr Timestamp TruncatedNormal UnicodeDecode '
                               'UnicodeDecodeWithOffsets UnicodeEncode UnicodeScript '
                               'UnicodeTranscode UnsortedSegmentJoin VarIsInitializedOp WriteFile'),
    'data.ops': ('DatasetCardinality IteratorGetNext IteratorGetNextAsOptional '
                 'MakeDatasetIterator OptionalGetValue OptionalHasValue PythonDataset'),
    'data.optional': 'OptionalFromValue OptionalNone',
    'distribute.multi_worker': 'CollectiveBatchReduce CollectiveGatherV2 CollectiveReduceV2',
    'saving.tf_resources': 'VarHandleOp',
    'summary.ops': ('CloseSummaryWriter EncodePng EncodeWav FlushSummaryWriter '
                    'HistogramSummaryBuckets WriteGraphSummary WriteRawProtoSummary WriteSummary'),
    'tracing.function_grad': 'PartitionedCall StatefulPartitionedCall',
}

# {module: operators}: where each Tensor operator is installed.
OPERATORS = {
    'ops.indexing.getitem': '__getitem__',
    'ops.linalg.products': '__matmul__ __rmatmul__',
    'ops.math.operators': ('__abs__ __add__ __and__ __eq__ __floordiv__ __ge__ __gt__ __invert__ '
                           '__le__ __lt__ __mod__ __mul__ __ne__ __neg__ __or__ __pow__ __radd__ '
                           '__rand__ __rfloordiv__ __rmod__ __rmul__ __ror__ __rpow__ __rsub__ '
                           '__rtruediv__ __rxor__ __sub__ __truediv__ __xor__'),
}
