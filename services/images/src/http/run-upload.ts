import { AppError } from '../errors/app-error';
import type { UploadOutcome as StoredUpload } from '../images/upload-service';
import type { Metrics, UploadOutcome } from '../metrics/metrics';
import type { UploadReceiver } from './upload-receiver';

function uploadOutcome(error: unknown): UploadOutcome {
  if (!(error instanceof AppError)) return 'failed';
  switch (error.key) {
    case 'notLoggedIn':
      return 'rejected_auth';
    case 'fileTooLarge':
      return 'rejected_size';
    case 'quotaExceeded':
      return 'rejected_quota';
    case 'unsupportedType':
    case 'tooManyPixels':
    case 'corruptImage':
      return 'rejected_type';
    default:
      return 'rejected_input';
  }
}

/**
 * One upload request, whichever API it came through (the service's own or a compatible one): counted
 * here and only here, and every temp file it made removed in the one `finally` (the upload service
 * moves the accepted file into the store first).
 */
export async function runUpload(
  deps: { receiver: UploadReceiver; metrics: Metrics },
  receiveAndStore: (receipt: ReturnType<UploadReceiver['upload']>) => Promise<StoredUpload>,
): Promise<StoredUpload> {
  const receipt = deps.receiver.upload();
  try {
    const outcome = await receiveAndStore(receipt);
    deps.metrics.countUpload(outcome.replayed ? 'replayed' : outcome.duplicate ? 'deduplicated' : 'stored');
    if (outcome.madeThumbnail) deps.metrics.countThumbnail();
    return outcome;
  } catch (error) {
    deps.metrics.countUpload(uploadOutcome(error));
    throw error;
  } finally {
    // Before any answer goes out: a client that reads the answer finds nothing left in tmp/.
    await receipt.discard();
  }
}
