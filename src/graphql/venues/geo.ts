import type { Prisma } from '../../db/generated/prisma/client.js';
import type { Context } from '../builder.js';
import type { FieldErrors } from '../errors.js';

export interface GeoPoint {
  latitude: number;
  longitude: number;
  radiusKm?: number | null;
}

export const DEFAULT_RADIUS_KM = 25;
const EARTH_RADIUS_KM = 6371.0088;
const toRadians = (degrees: number) => (degrees * Math.PI) / 180;
const toDegrees = (radians: number) => (radians * 180) / Math.PI;

/** Great-circle distance (haversine) in kilometres. */
export function distanceKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const dLat = toRadians(b.latitude - a.latitude);
  const dLng = toRadians(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(toRadians(a.latitude)) * Math.cos(toRadians(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * IDs of venues within the radius of a point: a bounding box narrows the rows in SQL, the exact distance decides.
 */
export async function venueIdsNear(
  ctx: Context,
  errors: FieldErrors,
  field: string,
  point: GeoPoint,
): Promise<number[]> {
  const radius = point.radiusKm ?? DEFAULT_RADIUS_KM;
  if (!(point.latitude >= -90 && point.latitude <= 90)) errors.add(`${field}.latitude`, 'must be between -90 and 90');
  if (!(point.longitude >= -180 && point.longitude <= 180))
    errors.add(`${field}.longitude`, 'must be between -180 and 180');
  if (!(radius > 0)) errors.add(`${field}.radiusKm`, 'must be greater than 0');
  if (!(radius > 0) || Math.abs(point.latitude) > 90 || Math.abs(point.longitude) > 180) return [];
  const candidates = await ctx.db.venue.findMany({
    where: boundingBox(point, radius),
    select: { id: true, latitude: true, longitude: true },
  });
  return candidates
    .filter((venue) => distanceKm(point, { latitude: venue.latitude!, longitude: venue.longitude! }) <= radius)
    .map((venue) => venue.id);
}

/** A little slack so that rounding never leaves out a venue the exact distance would keep. */
const SLACK = 1 + 1e-6;

/**
 * Latitudes and longitudes that can lie within `radiusKm` of the point: exact spherical bounds, split in two across
 * the antimeridian, and every longitude when the circle reaches a pole.
 */
function boundingBox(point: GeoPoint, radiusKm: number): Prisma.VenueWhereInput {
  const angular = (radiusKm / EARTH_RADIUS_KM) * SLACK;
  const latDelta = toDegrees(angular);
  const latitude = { gte: point.latitude - latDelta, lte: point.latitude + latDelta };
  if (latitude.lte >= 90 || latitude.gte <= -90) return { latitude, longitude: { not: null } };
  const lngDelta = toDegrees(Math.asin(Math.min(1, Math.sin(angular) / Math.cos(toRadians(point.latitude)))));
  const west = point.longitude - lngDelta;
  const east = point.longitude + lngDelta;
  if (west < -180) return { latitude, OR: [{ longitude: { gte: west + 360 } }, { longitude: { lte: east } }] };
  if (east > 180) return { latitude, OR: [{ longitude: { gte: west } }, { longitude: { lte: east - 360 } }] };
  return { latitude, longitude: { gte: west, lte: east } };
}
