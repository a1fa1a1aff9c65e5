import fs from 'node:fs';
import request from 'supertest';
import { createImagesRepository, type ImageRow } from '../src/images/images-repository';
import { createTestUser, expectConsistentStore, fixture, useTestService, usedBytes } from './support/harness';

// A crash can stop a request between any two of its steps. These tests build exactly the state each
// stop leaves (using the same repository and storage calls the services make, in the same order),
// then let housekeeping run with the clock past the recovery delays, and check the store's invariant.

const HOUR = 60 * 60 * 1000;
let offsetMs = 0;
const svc = useTestService({}, { clock: () => new Date(Date.now() + offsetMs) });
beforeEach(() => {
  offsetMs = 0;
});

const API = '/api/image.php';
const storage = () => svc.storage;
const store = () => svc.storage.current;
const images = () => createImagesRepository(svc.db);

async function uploadTiny(token: string): Promise<{ id: number; file_size: number }> {
  return (await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', token).attach('file', fixture('photo.webp'))).body.data;
}

/** A pending upload as `reserveUpload` leaves it, with its temp file ready to commit. */
async function reserve(userId: number): Promise<{ image: ImageRow; tempFile: string }> {
  const tempFile = storage().temp.newTempPath();
  fs.copyFileSync(fixture('photo.webp'), tempFile);
  const size = fs.statSync(tempFile).size;
  const category = await svc.db('categories').where({ user_id: userId, is_default: true }).first('id');
  const now = new Date();
  const reservation = await images().reserveUpload(
    {
      userId,
      categoryId: Number(category.id),
      storageKey: storage().newStorageKey('webp', now),
      thumbKey: storage().newStorageKey('webp', now),
      storageBackend: storage().backend,
      format: 'webp',
      originalName: 'crash.webp',
      fileSize: size,
      width: 10,
      height: 10,
    },
    size,
  );
  if (!('reserved' in reservation)) throw new Error(`refused: ${reservation.refused}`);
  return { image: reservation.reserved, tempFile };
}

async function recoverLater(): Promise<void> {
  offsetMs = 2 * HOUR;
  await svc.runHousekeeping();
}

describe('a crash during an upload', () => {
  test.each([
    ['after the charge and the pending row, before any file', 0],
    ['after the original went into public/, before the thumbnail', 1],
    ['after both files, before the row became stored', 2],
  ])('when it stops %s, then recovery removes the files and the row and refunds the bytes', async (_point, filesWritten) => {
    const user = await createTestUser(svc.db);
    const kept = await uploadTiny(user.token);
    const { image, tempFile } = await reserve(user.id);
    if (filesWritten >= 1) await store().putFile('public', image.storageKey, tempFile, 'image/webp');
    if (filesWritten >= 2) await store().putBytes('thumbs', image.thumbKey!, Buffer.from('thumbnail'), 'image/webp');
    await storage().temp.removeTemp(tempFile);
    expect(await usedBytes(svc.db, user.id)).toBe(kept.file_size + image.fileSize);

    // Young pending rows belong to live uploads: an early run leaves them alone.
    await svc.runHousekeeping();
    expect(await images().findById(image.id)).toMatchObject({ status: 'pending' });

    await recoverLater();
    expect(await images().findById(image.id)).toBeNull();
    expect(await usedBytes(svc.db, user.id)).toBe(kept.file_size);
    await expectConsistentStore(svc);
  });

  test('when a pending upload completes after recovery took it, then the upload fails cleanly instead of reviving it', async () => {
    const user = await createTestUser(svc.db);
    const { image } = await reserve(user.id);
    await recoverLater();
    expect(await images().completeUpload(image.id)).toBeNull();
    await expectConsistentStore(svc);
  });
});

describe('a crash during delete, restore or purge', () => {
  test.each([
    ['delete, before the file moved to bin/', 'delete', false, 'binned'],
    ['delete, after the file moved, before the row was binned', 'delete', true, 'binned'],
    ['restore, before the file moved back to public/', 'restore', false, 'stored'],
    ['restore, after the file moved, before the row was stored', 'restore', true, 'stored'],
  ] as const)('when it stops during %s, then recovery finishes the move', async (_point, action, fileMoved, finalStatus) => {
    const user = await createTestUser(svc.db);
    const uploaded = await uploadTiny(user.token);
    if (action === 'restore') await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: uploaded.id });
    const step = action === 'delete' ? ({ from: 'stored', via: 'binning' } as const) : ({ from: 'binned', via: 'restoring' } as const);
    const image = (await images().startStep(uploaded.id, step, { userId: user.id }))!;
    if (fileMoved) await store().move(action === 'delete' ? 'public' : 'bin', action === 'delete' ? 'bin' : 'public', image.storageKey);

    await recoverLater();
    expect(await images().findById(image.id)).toMatchObject({ status: finalStatus });
    expect(await usedBytes(svc.db, user.id)).toBe(uploaded.file_size);
    await expectConsistentStore(svc);
  });

  test.each([
    ['before any file was removed', 0],
    ['after the original was removed, before the thumbnail', 1],
    ['after both files were removed, before the row was deleted', 2],
  ])('when a purge stops %s, then recovery finishes it and refunds the bytes', async (_point, removed) => {
    const user = await createTestUser(svc.db);
    const uploaded = await uploadTiny(user.token);
    await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: uploaded.id });
    const image = (await images().startStep(uploaded.id, { from: 'binned', via: 'purging' }, { userId: user.id }))!;
    if (removed >= 1) await store().remove('bin', image.storageKey);
    if (removed >= 2 && image.thumbKey) await store().remove('thumbs', image.thumbKey);

    // Out of the bin list at once, as the user asked.
    const trash = await request(svc.app).get(`${API}?action=trash`).set('X-API-Token', user.token);
    expect(trash.body.data).toMatchObject({ list: [], total: 0 });

    await recoverLater();
    expect(await images().findById(image.id)).toBeNull();
    expect(await usedBytes(svc.db, user.id)).toBe(0);
    await expectConsistentStore(svc);
  });
});
