/** The attachment pipeline: download → sniff → image input, transcript or document text; config and helpers. */
export { MEDIA_DEFAULTS, type MediaConfig, type TranscribeConfig } from './media-config.js';
export { prepareMedia, type MediaDependencies, type MediaTurn, type MessageMedia } from './prepare-media.js';
export { createMediaCache, mediaCacheKey, MEDIA_CACHE_MAX_AGE_MS, type MediaCache } from './media-cache.js';
export { modelTakesImages } from './model-vision.js';
export { sanitizeFileName, saveUpload, UPLOADS_FOLDER } from './save-upload.js';
export { sniffType, MODEL_IMAGE_TYPES } from './sniff-type.js';
export { documentText } from './document-text.js';
export { composeUserText, createMediaProcessor, withMediaNotices, type MediaProcessor } from './turn-media.js';
