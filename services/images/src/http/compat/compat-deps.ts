import type { AccountService } from '../../auth/account-service';
import type { AuthService } from '../../auth/auth-service';
import type { CategoriesService } from '../../categories/categories-service';
import type { BinService } from '../../images/bin-service';
import type { ListingService } from '../../images/listing-service';
import type { UploadService } from '../../images/upload-service';
import type { Metrics } from '../../metrics/metrics';
import type { ProfileService } from '../../users/profile-service';
import type { Authenticate } from '../authenticate';
import type { UploadReceiver } from '../upload-receiver';

/** What the compatible APIs call: the service's own use cases, and the one authenticate. */
export interface CompatDeps {
  authenticate: Authenticate;
  auth: AuthService;
  account: AccountService;
  uploads: UploadService;
  listing: ListingService;
  bin: BinService;
  categories: CategoriesService;
  profile: ProfileService;
  receiver: UploadReceiver;
  metrics: Metrics;
  publicBaseUrl: string;
  /** The storage new uploads go to, as Lsky's one "strategy" names it. */
  storageName: string;
  maxUploadBytes: number;
  formatTime: (date: Date) => string;
  clock: () => Date;
}
